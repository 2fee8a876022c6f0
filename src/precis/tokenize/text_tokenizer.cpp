#include "precis/tokenize/text_tokenizer.h"

#include <nlohmann/json.hpp>

#include "precis/core/json_input.h"
#include "precis/tokenize/sentencepiece_tokenizer.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/tokenize/tokenizer_config.h"
#include "precis/tokenize/unigram_tokenizer.h"

namespace precis::tokenize {

namespace {

class BpeTextTokenizer final : public TextTokenizer {
 public:
  explicit BpeTextTokenizer(Tokenizer t) : t_(std::move(t)) {}
  std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                 std::optional<size_t> max_length) const override {
    return t_.encode_batch(texts, {true, max_length});
  }
  std::string decode(std::span<const int32_t> ids,
                     std::optional<bool> clean_up_tokenization_spaces) const override {
    DecodeOptions options;
    options.skip_special_tokens = true;
    options.clean_up_tokenization_spaces = clean_up_tokenization_spaces;
    return t_.decode(ids, options);
  }
  size_t size() const override { return t_.size(); }
  int32_t pad_token_id() const override { return t_.pad_token_id(); }
  std::optional<size_t> model_max_length() const override { return t_.settings().model_max_length; }
  void save(const std::filesystem::path& dir) const override { t_.save(dir); }

 private:
  Tokenizer t_;
};

// T5's tokenizers: SentencePieceTokenizer (spiece.model) or UnigramTokenizer (tokenizer.json).
template <class T5Tokenizer>
class T5TextTokenizer final : public TextTokenizer {
 public:
  T5TextTokenizer(T5Tokenizer t, std::optional<size_t> model_max_length)
      : t_(std::move(t)), model_max_length_(model_max_length) {}
  std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                 std::optional<size_t> max_length) const override {
    std::vector<std::vector<int32_t>> out;
    out.reserve(texts.size());
    for (const auto& text : texts) out.push_back(t_.encode_truncated(text, max_length.value_or(0)));
    return out;
  }
  std::string decode(std::span<const int32_t> ids,
                     std::optional<bool> clean_up_tokenization_spaces) const override {
    return t_.decode(ids, true, clean_up_tokenization_spaces);
  }
  size_t size() const override { return t_.size(); }
  int32_t pad_token_id() const override { return t_.pad_id(); }
  std::optional<size_t> model_max_length() const override { return model_max_length_; }
  void save(const std::filesystem::path& dir) const override { t_.save(dir); }

 private:
  T5Tokenizer t_;
  std::optional<size_t> model_max_length_;
};

// tokenizer.json's model type ("BPE", "Unigram", ...), "" when there is no such file.
std::string tokenizer_json_model_type(const std::filesystem::path& dir) {
  const nlohmann::json j = peek_json_file(dir / "tokenizer.json");
  return j.is_object() && j.contains("model") ? string_field_or_empty(j["model"], "type") : "";
}

}  // namespace

TokenizerKind tokenizer_kind(const std::filesystem::path& dir) {
  if (tokenizer_json_model_type(dir) == "Unigram") return TokenizerKind::kUnigramJson;
  if (std::filesystem::exists(dir / "spiece.model")) return TokenizerKind::kSpieceModel;
  return TokenizerKind::kByteLevelBpe;
}

std::unique_ptr<TextTokenizer> load_text_tokenizer(const std::filesystem::path& dir) {
  switch (tokenizer_kind(dir)) {
    case TokenizerKind::kSpieceModel:
      return std::make_unique<T5TextTokenizer<SentencePieceTokenizer>>(
          SentencePieceTokenizer::from_directory(dir), model_max_length_in(dir));
    case TokenizerKind::kUnigramJson:
      return std::make_unique<T5TextTokenizer<UnigramTokenizer>>(UnigramTokenizer::from_directory(dir),
                                                                 model_max_length_in(dir));
    case TokenizerKind::kByteLevelBpe:
      break;
  }
  return std::make_unique<BpeTextTokenizer>(Tokenizer::from_directory(dir));
}

}  // namespace precis::tokenize
