// Training a byte-level BPE from texts, as HF `tokenizers` does for
// ByteLevelBPETokenizer.train(...) (BpeTrainer with the ByteLevel alphabet), so that the
// vocabulary and the merges come out identical to HF's for the same texts and settings:
//
//   1. words: every text is cut by the GPT-2 pre-split; each piece's bytes, mapped to
//      byte-level characters, is a word; words are counted.
//   2. vocabulary: the special tokens (ids 0..), then the 256 byte characters sorted by code
//      point.
//   3. merges: repeatedly take the adjacent symbol pair with the highest count (occurrences
//      weighted by word count); ties go to the pair whose (left id, right id) is smallest. The
//      merged string gets the next id unless it is already a token. Stop when the vocabulary
//      is full, no pair is left, or the best count is below min_frequency.
//
// HF's bookkeeping is reproduced exactly, quirks included, because they change the result:
// pair counts are updated incrementally from the neighbours of each merge (the merged pair's
// own count is never lowered), and each queue entry only merges in the words it was created
// for (the same pair can then be merged twice when its string was reached two ways; the
// merge list keeps its last place, as HF's merge map does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "precis/tokenize/tokenizer.h"

namespace precis::tokenize {

struct BpeTrainerOptions {
  // Size of the final vocabulary, every token counted: the special tokens, the 256 bytes, the
  // merges and the mask token (so len(tokenizer) == vocab_size unless the texts run out of
  // pairs first). HF's trainer is then run with vocab_size - 1 and <mask> appended after it.
  size_t vocab_size = 30000;
  // A pair seen fewer times than this (weighted by word count) ends training.
  uint64_t min_frequency = 2;
  // Given ids 0, 1, ... before the alphabet, as BpeTrainer(special_tokens=...).
  std::vector<std::string> special_tokens = {"<s>", "<pad>", "</s>", "<unk>"};
  // Appended after training with the next free id, as BART/RoBERTa's <mask>.
  std::optional<std::string> mask_token = "<mask>";
  // A progress line on stderr while merging.
  bool show_progress = false;
};

// How often each pre-token occurs: what BpeTrainer::feed gathers. Keys are the raw bytes of
// the GPT-2 pieces (mapped to byte-level characters only when training starts).
class WordCounts {
 public:
  // Throws precis::Error when `text` is not valid UTF-8.
  void add_text(std::string_view text);
  // add_text over many texts, in parallel (OpenMP); throws on the first invalid text, naming
  // its index.
  void add_texts(const std::vector<std::string>& texts);
  void add_texts(const std::vector<std::string_view>& texts);
  void merge(const WordCounts& other);

  size_t size() const { return counts_.size(); }
  const std::unordered_map<std::string, uint64_t>& counts() const { return counts_; }

 private:
  template <class Text>
  void add_many(const std::vector<Text>& texts);
  std::unordered_map<std::string, uint64_t> counts_;
};

struct BpeModelData {
  std::unordered_map<std::string, int32_t> vocab;           // token string -> id
  std::vector<std::pair<std::string, std::string>> merges;  // in rank order
};

// Throws precis::Error when vocab_size cannot hold the special tokens and the alphabet.
BpeModelData train_bpe(const WordCounts& words, const BpeTrainerOptions& options);

// train_bpe, wrapped as BartTokenizerFast wraps vocab.json + merges.txt (<s> ... </s>,
// <mask> with lstrip); save(dir) writes the files transformers' AutoTokenizer loads.
Tokenizer train_tokenizer(const WordCounts& words, const BpeTrainerOptions& options,
                          const TokenizerSettings& settings = {});

}  // namespace precis::tokenize
