// Added tokens (the specials <s> </s> <pad> <unk> <mask>, and any others) are cut out of
// the raw text before the pre-tokenizer sees it, as HF `tokenizers`' AddedVocabulary does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace precis::tokenize {

struct AddedToken {
  int32_t id = -1;
  std::string content;
  bool single_word = false;  // match only where not inside a word
  bool lstrip = false;       // also swallow the whitespace just before the match
  bool rstrip = false;       // ... and just after it
  bool normalized = true;    // matched after normalization (second pass) rather than before
  bool special = false;      // dropped by decode(skip_special_tokens=true)
};

// A piece of the input: an added token (id >= 0) or text still to be tokenized (id == -1).
struct Segment {
  std::string_view text;
  int32_t id = -1;
};

// Finds added tokens as tokenizers 0.19's AddedVocabulary::find_matches does: its
// aho-corasick automaton (leftmost-longest, matches not overlapping, each search starting
// where the last match ended), then single_word / lstrip / rstrip applied to each match.
class AddedTokenMatcher {
 public:
  // What a token's content becomes before it is looked for: tokenizers runs the normalizer
  // over the content of normalized tokens (refresh_added_tokens), so "ｆｕｌｌ" is looked for
  // as "full" in T5's normalized text.
  using Normalize = std::function<std::string(std::string_view)>;

  AddedTokenMatcher() = default;
  // `tokens` in the order tokenizers adds them (a tokenizer.json's added_tokens order); the
  // special ones are looked for first, as tokenizers chains its special_tokens list before
  // the others (which wins only between two tokens that normalize to the same text).
  explicit AddedTokenMatcher(std::vector<AddedToken> tokens, const Normalize& normalize = nullptr);

  bool empty() const { return tokens_.empty(); }
  // Splits `text` into segments (empty text segments are dropped) and appends them. As in
  // tokenizers, the whitespace a match's rstrip swallows is searched again, so the next
  // match may take it too; and a token whose pattern is empty (content that normalizes to
  // nothing) matches at every byte where nothing else does, which tokenizers only survives
  // between ASCII characters: inside a multi-byte character it panics, and this throws.
  void split(std::string_view text, std::vector<Segment>& out) const;

 private:
  // Index of the longest non-empty pattern matching at text[i], or -1.
  int longest_at(std::string_view text, size_t i) const;

  std::vector<AddedToken> tokens_;
  std::vector<std::string> patterns_;  // what is looked for: the (normalized) content
  int empty_pattern_ = -1;             // the first token whose pattern is empty, if any
  bool first_byte_[256] = {};
  std::vector<std::vector<int>> by_first_byte_;  // token indices, longest first
};

}  // namespace precis::tokenize
