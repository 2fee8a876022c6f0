#include "precis/tokenize/added_tokens.h"

#include <algorithm>

#include "precis/tokenize/unicode_tables.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

// Start of the code point that ends just before byte offset `end`.
size_t previous_char(std::string_view s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

CharClass class_before(std::string_view s, size_t end) {
  size_t i = previous_char(s, end), len = 0;
  return char_class(decode_utf8_at(s, i, len));
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

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens)
    : tokens_(std::move(tokens)), by_first_byte_(256) {
  for (size_t k = 0; k < tokens_.size(); ++k) {
    if (tokens_[k].content.empty()) continue;
    auto b = static_cast<unsigned char>(tokens_[k].content[0]);
    first_byte_[b] = true;
    by_first_byte_[b].push_back(static_cast<int>(k));
  }
  for (auto& list : by_first_byte_)
    std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
      return tokens_[a].content.size() > tokens_[b].content.size();
    });
}

int AddedTokenMatcher::longest_at(std::string_view text, size_t i) const {
  for (int k : by_first_byte_[static_cast<unsigned char>(text[i])])
    if (text.substr(i).starts_with(tokens_[k].content)) return k;
  return -1;
}

void AddedTokenMatcher::split(std::string_view text, std::vector<Segment>& out) const {
  auto emit_text = [&](size_t from, size_t to) {
    if (to > from) out.push_back({text.substr(from, to - from), -1});
  };
  size_t done = 0;  // end of the last emitted segment
  size_t scan = 0;  // where the automaton resumes (after the last match, taken or not)
  while (scan < text.size()) {
    if (!first_byte_[static_cast<unsigned char>(text[scan])]) {
      ++scan;
      continue;
    }
    int k = longest_at(text, scan);
    if (k < 0) {
      ++scan;
      continue;
    }
    const AddedToken& t = tokens_[k];
    size_t start = scan, stop = scan + t.content.size();
    scan = stop;
    if (t.single_word && (word_before(text, start) || word_after(text, stop))) continue;
    if (t.lstrip) {
      // Never reach back into what an earlier match already took.
      while (start > done && class_before(text, start) == CharClass::kSpace)
        start = previous_char(text, start);
    }
    if (t.rstrip) {
      size_t len = 0;
      while (stop < text.size() && char_class(decode_utf8_at(text, stop, len)) == CharClass::kSpace)
        stop += len;
    }
    emit_text(done, start);
    out.push_back({text.substr(start, stop - start), t.id});
    done = stop;
    scan = std::max(scan, stop);
  }
  emit_text(done, text.size());
}

}  // namespace precis::tokenize
