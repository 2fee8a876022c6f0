// What NLTK's Punkt asks of Python's str and re, for text held as UTF-8: the classes \s, \w
// and \d of a re.UNICODE pattern, str.isupper()/islower() of one character, str.lower()
// (full mapping, final sigma included) and str.strip(). The per-code-point facts come from
// Python 3.11 itself through scripts/gen_python_text_tables.py (python_text_tables.cpp).
//
// A byte that does not start a well-formed UTF-8 sequence is read as a code point of its own
// with none of the properties (U+FFFD, as tokenize::decode_utf8_lossy_at reads it): Python
// never sees such text, and precis keeps the bytes as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace precis::eval::python_text {

enum CharFlag : uint8_t {
  kSpace = 1,           // \s, str.isspace()
  kWord = 2,            // \w: str.isalnum() or "_"
  kDecimal = 4,         // \d, str.isdecimal()
  kUpper = 8,           // str.isupper() of the character alone
  kLower = 16,          // str.islower() of the character alone
  kCaseIgnorable = 32,  // skipped by the final-sigma rule
  kCased = 64,          // cased and not case-ignorable: decides the final-sigma rule
};

struct CharRun {
  char32_t first, last;  // inclusive
  uint8_t flags;
};
struct LowerMapping {
  char32_t code_point;
  char32_t lower[2];  // lower[1] == 0 for a one-code-point mapping
};

extern const CharRun kCharRuns[];
extern const size_t kCharRunCount;
extern const LowerMapping kLowerMappings[];
extern const size_t kLowerMappingCount;

uint8_t flags(char32_t cp);
inline bool is_space(char32_t cp) { return flags(cp) & kSpace; }
inline bool is_word(char32_t cp) { return flags(cp) & kWord; }
inline bool is_decimal(char32_t cp) { return flags(cp) & kDecimal; }
inline bool is_upper(char32_t cp) { return flags(cp) & kUpper; }
inline bool is_lower(char32_t cp) { return flags(cp) & kLower; }

// str.lower().
std::string lower(std::string_view s);
// str.strip() and str.rstrip() (Python's whitespace, \s).
std::string_view strip(std::string_view s);
std::string_view rstrip(std::string_view s);

}  // namespace precis::eval::python_text
