// The byte-level BPE tokenizer of BART/RoBERTa/GPT-2 checkpoints, giving exactly the ids and
// text of transformers' AutoTokenizer (the fast, `tokenizers`-backed pipeline):
//   added-token split -> GPT-2 pre-split -> byte-level BPE -> <s> ... </s>
// and back: ids -> token strings -> bytes -> UTF-8 (lossy) -> clean-up of spaces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "precis/tokenize/added_tokens.h"
#include "precis/tokenize/bpe.h"
#include "precis/tokenize/post_processor.h"

namespace precis::tokenize {

struct EncodeOptions {
  bool add_special_tokens = true;
  // As tokenizer(text, max_length=M, truncation=True): specials count towards M and the
  // content is cut from the right. HF quirk kept: an M below the number of specials (with
  // add_special_tokens) truncates nothing.
  std::optional<size_t> max_length;
};

struct DecodeOptions {
  bool skip_special_tokens = false;
  // nullopt: the tokenizer's own setting (tokenizer_config.json; absent, true under
  // hf_semantics 4.44 and false under 5). 5.x ignores it for BPE tokenizers (see below).
  std::optional<bool> clean_up_tokenization_spaces;
};

// transformers' special-token attributes, by content; nullopt where a checkpoint has none.
struct SpecialTokens {
  std::optional<std::string> bos = "<s>", eos = "</s>", unk = "<unk>", sep = "</s>", pad = "<pad>",
                             cls = "<s>", mask = "<mask>";
  std::vector<std::string> additional;
};

// Settings that live in tokenizer_config.json rather than in the BPE files.
struct TokenizerSettings {
  SpecialTokens special_tokens;
  bool add_prefix_space = false;
  bool clean_up_tokenization_spaces = true;
  // 5.x decodes a BPE tokenizer without the clean-up, whatever was asked (it strips spaces that
  // belong to the text, "generate .bif"), unless tokenizer_config.json sets
  // clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output. 4.44 cleans up.
  bool clean_up_ignored = false;
  std::optional<size_t> model_max_length;  // nullopt: unbounded (HF's int(1e30))
};

class Tokenizer {
 public:
  // Reads tokenizer.json when present, else vocab.json + merges.txt; tokenizer_config.json
  // and special_tokens_map.json when present. Throws precis::Error naming the file and the
  // problem.
  static Tokenizer from_directory(const std::filesystem::path& dir);

  // A tokenizer built in memory (a BPE trainer's output), set up as BartTokenizerFast sets
  // up one from vocab.json + merges.txt. Throws precis::Error on inconsistent merges.
  static Tokenizer from_vocab_and_merges(std::unordered_map<std::string, int32_t> vocab,
                                         std::vector<std::pair<std::string, std::string>> merges,
                                         const TokenizerSettings& settings = {});

  // `text` must be valid UTF-8 (precis::Error otherwise).
  std::vector<int32_t> encode(std::string_view text, const EncodeOptions& options = {}) const;
  // encode() over many texts, in parallel (OpenMP); results in input order.
  std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                 const EncodeOptions& options = {}) const;
  // Unknown ids decode to nothing, as in HF.
  std::string decode(std::span<const int32_t> ids, const DecodeOptions& options = {}) const;

  // Writes vocab.json, merges.txt, tokenizer.json, tokenizer_config.json and
  // special_tokens_map.json (each atomically) that transformers.AutoTokenizer loads back
  // to this tokenizer. Creates `dir` if needed.
  void save(const std::filesystem::path& dir) const;

  size_t size() const { return size_; }  // len(tokenizer): distinct tokens, added included
  std::optional<int32_t> token_to_id(std::string_view token) const;
  std::optional<std::string> id_to_token(int32_t id) const;
  bool is_special(int32_t id) const;

  // Ids of the special tokens; precis::Error when the tokenizer has no such token.
  int32_t pad_token_id() const { return special_id(settings_.special_tokens.pad, "pad"); }
  int32_t bos_token_id() const { return special_id(settings_.special_tokens.bos, "bos"); }
  int32_t eos_token_id() const { return special_id(settings_.special_tokens.eos, "eos"); }
  int32_t unk_token_id() const { return special_id(settings_.special_tokens.unk, "unk"); }
  int32_t mask_token_id() const { return special_id(settings_.special_tokens.mask, "mask"); }

  const TokenizerSettings& settings() const { return settings_; }
  const std::vector<AddedToken>& added_tokens() const { return added_; }

 private:
  friend struct TokenizerLoader;
  friend struct TokenizerWriter;
  Tokenizer() = default;

  // Builds the matchers and the id tables once every field is set.
  void finish();
  void encode_text(std::string_view text, std::vector<int32_t>& out) const;
  int32_t special_id(const std::optional<std::string>& token, const char* name) const;

  std::optional<Bpe> bpe_;
  std::vector<AddedToken> added_;         // ordered by id
  AddedTokenMatcher raw_matcher_;         // added tokens with normalized == false
  AddedTokenMatcher normalized_matcher_;  // the others
  bool use_regex_ = true;
  bool trim_offsets_ = true;
  PostProcessor post_;
  bool byte_level_decoder_ = true;  // else tokens are joined with spaces (no decoder)
  TokenizerSettings settings_;

  // Per id: the bytes decode() emits and whether it exists / is special.
  std::vector<std::string> id_bytes_;
  std::vector<std::string> id_token_;
  std::vector<uint8_t> id_flags_;
  std::unordered_map<std::string, int32_t> added_by_content_;
  size_t size_ = 0;
  uint64_t cache_key_ = 0;  // names this tokenizer's per-thread word caches
};

}  // namespace precis::tokenize
