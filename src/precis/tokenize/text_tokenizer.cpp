#include "precis/tokenize/text_tokenizer.h"

#include "precis/tokenize/sentencepiece_tokenizer.h"
#include "precis/tokenize/tokenizer.h"

namespace precis::tokenize {

namespace {

class BpeTextTokenizer final : public TextTokenizer {
 public:
  explicit BpeTextTokenizer(Tokenizer t) : t_(std::move(t)) {}
  std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                 std::optional<size_t> max_length) const override {
    return t_.encode_batch(texts, {true, max_length});
  }
  std::string decode(std::span<const int32_t> ids) const override {
    DecodeOptions options;
    options.skip_special_tokens = true;
    return t_.decode(ids, options);
  }
  size_t size() const override { return t_.size(); }
  int32_t pad_token_id() const override { return t_.pad_token_id(); }
  std::optional<size_t> model_max_length() const override { return t_.settings().model_max_length; }
  void save(const std::filesystem::path& dir) const override { t_.save(dir); }

 private:
  Tokenizer t_;
};

class SentencePieceTextTokenizer final : public TextTokenizer {
 public:
  explicit SentencePieceTextTokenizer(SentencePieceTokenizer t) : t_(std::move(t)) {}
  std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                 std::optional<size_t> max_length) const override {
    std::vector<std::vector<int32_t>> out;
    out.reserve(texts.size());
    for (const auto& text : texts) out.push_back(t_.encode_truncated(text, max_length.value_or(0)));
    return out;
  }
  std::string decode(std::span<const int32_t> ids) const override { return t_.decode(ids, true); }
  size_t size() const override { return t_.size(); }
  int32_t pad_token_id() const override { return t_.pad_id(); }
  std::optional<size_t> model_max_length() const override { return std::nullopt; }
  void save(const std::filesystem::path& dir) const override { t_.save(dir); }

 private:
  SentencePieceTokenizer t_;
};

}  // namespace

std::unique_ptr<TextTokenizer> load_text_tokenizer(const std::filesystem::path& dir) {
  if (std::filesystem::exists(dir / "spiece.model"))
    return std::make_unique<SentencePieceTextTokenizer>(SentencePieceTokenizer::from_directory(dir));
  return std::make_unique<BpeTextTokenizer>(Tokenizer::from_directory(dir));
}

}  // namespace precis::tokenize
