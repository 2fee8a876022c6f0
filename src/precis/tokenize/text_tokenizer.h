// What the data path, evaluation and serving need from a checkpoint's tokenizer, whatever
// its kind: byte-level BPE (BART's vocab.json + merges.txt / tokenizer.json: Tokenizer) or
// SentencePiece unigram (T5's spiece.model: SentencePieceTokenizer). Each call means what
// transformers' AutoTokenizer of that checkpoint does.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace precis::tokenize {

class TextTokenizer {
 public:
  virtual ~TextTokenizer() = default;

  // tokenizer(texts, max_length=max_length, truncation=True)["input_ids"]: special tokens
  // added, counted in max_length (nullopt: no limit).
  virtual std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                         std::optional<size_t> max_length) const = 0;
  // tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=clean_up):
  // nullopt is the tokenizer's own setting; a release's rules apply (5.x ignores true for BPE).
  virtual std::string decode(std::span<const int32_t> ids,
                             std::optional<bool> clean_up_tokenization_spaces) const = 0;
  std::string decode(std::span<const int32_t> ids) const { return decode(ids, std::nullopt); }

  virtual size_t size() const = 0;  // len(tokenizer)
  virtual int32_t pad_token_id() const = 0;
  // tokenizer.model_max_length when the files set one.
  virtual std::optional<size_t> model_max_length() const = 0;
  // save_pretrained: the files AutoTokenizer.from_pretrained reads back.
  virtual void save(const std::filesystem::path& dir) const = 0;

  std::vector<int32_t> encode(const std::string& text, std::optional<size_t> max_length) const {
    return encode_batch({text}, max_length)[0];
  }
};

// Which tokenizer a checkpoint directory holds, in AutoTokenizer's order: a tokenizer.json with
// a Unigram model (T5TokenizerFast's ids, what run_summarization uses by default), else
// spiece.model (T5Tokenizer's), else byte-level BPE (BART's tokenizer.json or vocab.json +
// merges.txt). Every place that builds a tokenizer from a directory switches on this.
enum class TokenizerKind { kUnigramJson, kSpieceModel, kByteLevelBpe };
TokenizerKind tokenizer_kind(const std::filesystem::path& dir);

// The tokenizer of a checkpoint directory, of its tokenizer_kind.
std::unique_ptr<TextTokenizer> load_text_tokenizer(const std::filesystem::path& dir);

}  // namespace precis::tokenize
