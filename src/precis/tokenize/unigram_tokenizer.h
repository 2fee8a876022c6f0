// T5's tokenizer from `tokenizer.json` alone (a Unigram model, as transformers 4.44
// convert_slow_tokenizer.py's T5Converter writes it), giving the ids and text of transformers'
// T5TokenizerFast (models/t5/tokenization_t5_fast.py; HF `tokenizers` 0.19):
//   split out added tokens that are not normalized (</s>, <unk>, <pad>, <extra_id_N>, with their
//   lstrip / rstrip / single_word flags) -> normalizer (Precompiled charsmap, Strip, Replace) on
//   each remaining piece -> split out normalized added tokens (looked for as the normalizer
//   makes their content) -> Metaspace pre-tokenizer ->
//   Unigram Viterbi per pre-token -> post-processor ($A </s>).
// Decoding: ids -> tokens (specials dropped when asked) -> Metaspace decoder -> transformers'
// clean-up of tokenization spaces (when tokenizer_config.json asks, the default).
// The same public API as SentencePieceTokenizer, which reads `spiece.model` instead.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "precis/tokenize/added_tokens.h"
#include "precis/tokenize/metaspace.h"
#include "precis/tokenize/normalizer_sequence.h"
#include "precis/tokenize/post_processor.h"
#include "precis/tokenize/unigram_model.h"

namespace precis::tokenize {

class UnigramTokenizer {
 public:
  // Reads dir/tokenizer.json, and tokenizer_config.json / special_tokens_map.json when present
  // (eos_token, pad_token, clean_up_tokenization_spaces). Throws precis::Error naming the file
  // and field for anything it cannot read.
  static UnigramTokenizer from_directory(const std::filesystem::path& dir);

  // tokenizer(text)["input_ids"]; add_eos false: add_special_tokens=False (no post-processor).
  std::vector<int32_t> encode(std::string_view text, bool add_eos = true) const;
  // tokenizer.decode(ids, skip_special_tokens=..., clean_up_tokenization_spaces=...), nullopt
  // the config's setting; unknown ids are dropped, as HF does.
  std::string decode(std::span<const int32_t> ids, bool skip_special_tokens = true,
                     std::optional<bool> clean_up_tokenization_spaces = std::nullopt) const;
  // tokenizer(text, max_length=max_length, truncation=True): the text's ids cut to leave room
  // for the post-processor's tokens, which are then added (max_length 0: no limit).
  std::vector<int32_t> encode_truncated(std::string_view text, size_t max_length) const;

  // save_pretrained's files: tokenizer.json (the bytes read), tokenizer_config.json and
  // special_tokens_map.json (the source's, or written for T5TokenizerFast), each atomically.
  void save(const std::filesystem::path& dir) const;

  size_t size() const;  // len(tokenizer): distinct tokens of the model and the added tokens
  int32_t eos_id() const { return eos_id_; }
  int32_t pad_id() const { return pad_id_; }

 private:
  // Id of a token by its text: added tokens first, then the model's pieces; -1 if neither.
  int32_t token_id(std::string_view token) const;

  UnigramModel model_;
  NormalizerSequence normalizer_;
  bool whitespace_split_ = false;  // old files: Sequence[WhitespaceSplit, Metaspace]
  Metaspace pre_tokenizer_;
  bool has_decoder_ = true;
  Metaspace decoder_;
  PostProcessor post_processor_;
  std::vector<AddedToken> added_;
  AddedTokenMatcher raw_matcher_;         // added tokens with normalized = false
  AddedTokenMatcher normalized_matcher_;  // ... with normalized = true
  std::unordered_map<int32_t, std::string> added_by_id_;
  std::unordered_map<std::string, int32_t> added_by_content_;
  std::unordered_set<std::string> special_contents_;
  bool clean_up_tokenization_spaces_ = true;
  int32_t eos_id_ = -1, pad_id_ = -1;
  std::string eos_token_ = "</s>", pad_token_ = "<pad>", unk_token_ = "<unk>";
  // The source files' bytes, by name: tokenizer.json always, the configs when present.
  std::unordered_map<std::string, std::string> files_;
};

}  // namespace precis::tokenize
