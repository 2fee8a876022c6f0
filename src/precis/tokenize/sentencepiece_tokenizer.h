// T5's tokenizer from `spiece.model`, through Debian's libsentencepiece, giving the ids and
// text of transformers' T5Tokenizer (transformers 4.44 models/t5/tokenization_t5.py: the
// sentencepiece-backed "slow" class, with its default legacy=True behaviour):
//   split on special tokens (</s>, <unk>, <pad>, <extra_id_N>; the sentinels eat the spaces
//   around them) -> SentencePiece unigram on each piece of text -> ids -> </s> appended.
// Sentinels <extra_id_N> take the ids after the model's pieces, in reverse: <extra_id_0> last.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace precis::tokenize {

class SentencePieceTokenizer {
 public:
  // Reads dir/spiece.model; tokenizer_config.json's extra_ids (default 100) when present.
  static SentencePieceTokenizer from_directory(const std::filesystem::path& dir);
  static SentencePieceTokenizer from_model_file(const std::filesystem::path& spiece_model,
                                                int extra_ids = 100);

  // With add_eos, </s> is appended unless the ids already end with it (as HF).
  std::vector<int32_t> encode(std::string_view text, bool add_eos = true) const;
  // tokenizer.decode(ids, skip_special_tokens=..., clean_up_tokenization_spaces=...): the
  // clean-up unless asked for none (T5Tokenizer's setting is true).
  std::string decode(std::span<const int32_t> ids, bool skip_special_tokens = true,
                     std::optional<bool> clean_up_tokenization_spaces = std::nullopt) const;

  // tokenizer(text, max_length=max_length, truncation=True): the text's ids cut to
  // max_length - 1, then </s> (max_length 0: no limit).
  std::vector<int32_t> encode_truncated(std::string_view text, size_t max_length) const;

  // save_pretrained's files: spiece.model, and tokenizer_config.json / special_tokens_map.json
  // (the source directory's, or written for T5Tokenizer), each atomically.
  void save(const std::filesystem::path& dir) const;

  size_t size() const;  // len(tokenizer): pieces + sentinels
  int32_t eos_id() const { return eos_id_; }
  int32_t pad_id() const { return pad_id_; }

 private:
  std::shared_ptr<sentencepiece::SentencePieceProcessor> sp_;
  int extra_ids_ = 100;
  int32_t pad_id_ = 0, eos_id_ = 1, unk_id_ = 2;
  // Special tokens by text: </s>, <unk>, <pad> and the sentinels.
  std::unordered_map<std::string, int32_t> specials_;
  // The source directory's tokenizer_config.json / special_tokens_map.json bytes, by name.
  std::unordered_map<std::string, std::string> config_files_;
  std::string sentinel(int32_t id) const;  // "<extra_id_N>" for a sentinel id
  bool is_sentinel(int32_t id) const;
};

}  // namespace precis::tokenize
