// Added tokens (the specials <s> </s> <pad> <unk> <mask>, and any others) are cut out of
// the raw text before the pre-tokenizer sees it, as HF `tokenizers`' AddedVocabulary does.
#pragma once

#include <cstdint>
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

// Finds added tokens leftmost-longest, matches not overlapping, as the aho-corasick
// automaton in HF does; then applies single_word / lstrip / rstrip to each match.
class AddedTokenMatcher {
 public:
  AddedTokenMatcher() = default;
  explicit AddedTokenMatcher(std::vector<AddedToken> tokens);

  bool empty() const { return tokens_.empty(); }
  // Splits `text` into segments (empty text segments are dropped) and appends them.
  void split(std::string_view text, std::vector<Segment>& out) const;

 private:
  // Index of the longest token matching at text[i], or -1.
  int longest_at(std::string_view text, size_t i) const;

  std::vector<AddedToken> tokens_;
  bool first_byte_[256] = {};
  std::vector<std::vector<int>> by_first_byte_;  // token indices, longest first
};

}  // namespace precis::tokenize
