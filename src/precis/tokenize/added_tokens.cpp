#include "precis/tokenize/added_tokens.h"

#include <algorithm>

#include "precis/core/error.h"
#include "precis/tokenize/unicode_tables.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Start of the code point that ends just before byte offset `end`.
size_t previous_char(std::string_view s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && is_continuation(s[i])) --i;
  return i;
}

char32_t char_before(std::string_view s, size_t end) {
  size_t len = 0;
  return decode_utf8_at(s, previous_char(s, end), len);
}

// single_word's word characters: tokenizers tests `\w$` on the text before the match and
// `^\w` on the text after it (ends_with_word / starts_with_word), with the regex crate's \w.
bool word_before(std::string_view s, size_t start) {
  return start > 0 && is_word_char(char_before(s, start));
}

bool word_after(std::string_view s, size_t stop) {
  size_t len = 0;
  return stop < s.size() && is_word_char(decode_utf8_at(s, stop, len));
}

bool is_space(char32_t cp) { return char_class(cp) == CharClass::kSpace; }

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens, const Normalize& normalize)
    : by_first_byte_(256) {
  for (AddedToken& t : tokens)
    if (!t.content.empty()) tokens_.push_back(std::move(t));  // tokenizers ignores those
  std::stable_partition(tokens_.begin(), tokens_.end(),
                        [](const AddedToken& t) { return t.special; });
  for (const AddedToken& t : tokens_)
    patterns_.push_back(normalize && t.normalized ? normalize(t.content) : t.content);
  for (size_t k = 0; k < tokens_.size(); ++k) {
    if (patterns_[k].empty()) {
      if (empty_pattern_ < 0) empty_pattern_ = static_cast<int>(k);
      continue;
    }
    auto b = static_cast<unsigned char>(patterns_[k][0]);
    first_byte_[b] = true;
    by_first_byte_[b].push_back(static_cast<int>(k));
  }
  // Longest first; between equal patterns the first given wins, as in the automaton.
  for (auto& list : by_first_byte_)
    std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
      return patterns_[a].size() > patterns_[b].size();
    });
}

int AddedTokenMatcher::longest_at(std::string_view text, size_t i) const {
  if (i >= text.size() || !first_byte_[static_cast<unsigned char>(text[i])]) return -1;
  for (int k : by_first_byte_[static_cast<unsigned char>(text[i])])
    if (text.substr(i).starts_with(patterns_[k])) return k;
  return -1;
}

void AddedTokenMatcher::split(std::string_view text, std::vector<Segment>& out) const {
  if (text.empty()) return;
  auto emit_text = [&](size_t from, size_t to) {
    if (to > from) out.push_back({text.substr(from, to - from), -1});
  };
  const bool matches_empty = empty_pattern_ >= 0;
  size_t done = 0;       // end of the last emitted token (tokenizers' start_offset)
  size_t scan = 0;       // where the next search starts: the end of the last match
  size_t last_end = 0;   // ... which an empty match may not repeat
  bool matched = false;
  while (scan < text.size() || (matches_empty && scan == text.size())) {
    int k = longest_at(text, scan);
    if (k < 0) {
      // The automaton's leftmost match: an empty one here, if a pattern is empty, except
      // just where the last match ended (the iterator then moves on one byte).
      if (!matches_empty || (matched && scan == last_end)) {
        ++scan;
        continue;
      }
      k = empty_pattern_;
    }
    const AddedToken& t = tokens_[k];
    size_t start = scan, stop = scan + patterns_[k].size();
    scan = last_end = stop;
    matched = true;
    check(start == text.size() || !is_continuation(text[start]),
          "added token '" + t.content + "' (id " + std::to_string(t.id) +
              ") normalizes to an empty pattern, which matches inside a multi-byte character "
              "of the text; tokenizers panics here ('AddedVocabulary bad split')");
    if (t.single_word && (word_before(text, start) || word_after(text, stop))) continue;
    if (t.lstrip) {
      // Back over the whitespace before the match, but never into what an earlier token took
      // (which, after an rstrip, may even move the start forward).
      size_t s = start;
      while (s > done && is_space(char_before(text, s))) s = previous_char(text, s);
      start = std::max(s, done);
      check(start <= stop, "added token '" + t.content + "' (id " + std::to_string(t.id) +
                               ") with lstrip matches inside the whitespace an earlier token's "
                               "rstrip took; tokenizers panics here ('AddedVocabulary bad split')");
    }
    if (t.rstrip) {
      size_t len = 0;
      while (stop < text.size() && is_space(decode_utf8_at(text, stop, len))) stop += len;
    }
    emit_text(done, start);
    if (stop > start) out.push_back({text.substr(start, stop - start), t.id});  // empty: dropped
    done = stop;
  }
  emit_text(done, text.size());
}

}  // namespace precis::tokenize
