#include "precis/tokenize/gpt2_split.h"

#include "precis/tokenize/unicode_tables.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

// Class of the character at byte offset i (with its length); ASCII without a table lookup.
inline CharClass class_at(std::string_view s, size_t i, size_t& len) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    len = 1;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return CharClass::kLetter;
    if (c >= '0' && c <= '9') return CharClass::kNumber;
    if (c == ' ' || (c >= 0x09 && c <= 0x0D)) return CharClass::kSpace;
    return CharClass::kOther;
  }
  return char_class(decode_utf8_at(s, i, len));
}

// End of the run of characters of class `cls` starting at i.
size_t run_end(std::string_view s, size_t i, CharClass cls) {
  while (i < s.size()) {
    size_t len = 0;
    if (class_at(s, i, len) != cls) break;
    i += len;
  }
  return i;
}

// Length of a lower-case contraction ('s 't 're 've 'm 'll 'd) at i, or 0.
size_t contraction(std::string_view s, size_t i) {
  if (s[i] != '\'' || i + 1 >= s.size()) return 0;
  char a = s[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= s.size()) return 0;
  char b = s[i + 2];
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

}  // namespace

void split_gpt2(std::string_view s, std::vector<std::string_view>& pieces) {
  size_t i = 0;
  while (i < s.size()) {
    size_t end = 0;
    if (size_t n = contraction(s, i)) {
      end = i + n;
    } else {
      size_t len = 0;
      CharClass cls = class_at(s, i, len);
      // ' ?X+' : an ASCII space may lead a run of letters, numbers or other symbols.
      if (s[i] == ' ' && i + 1 < s.size()) {
        size_t next_len = 0;
        CharClass next = class_at(s, i + 1, next_len);
        if (next != CharClass::kSpace) end = run_end(s, i + 1, next);
      }
      if (end == 0) {
        if (cls != CharClass::kSpace) {
          end = run_end(s, i, cls);
        } else {
          // \s+(?!\S) takes the whole run at the end of text, else all but its last
          // character (which then leads the next word); a lone space before a word
          // falls through to \s+ and stands alone.
          size_t run = run_end(s, i, CharClass::kSpace);
          end = run;
          if (run < s.size()) {
            size_t last = run - 1;
            while ((static_cast<unsigned char>(s[last]) & 0xC0) == 0x80) --last;
            if (last > i) end = last;
          }
        }
      }
    }
    pieces.push_back(s.substr(i, end - i));
    i = end;
  }
}

}  // namespace precis::tokenize
