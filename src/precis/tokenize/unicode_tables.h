// Unicode character classes for the GPT-2 pre-split regex: \p{L}, \p{N} and \s exactly as
// Oniguruma (which HF `tokenizers` runs the regex on) defines them. The ranges are generated
// by scripts/gen_unicode_tables.py; char_class() looks them up through a two-stage table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace precis::tokenize {

enum class CharClass : uint8_t { kOther, kLetter, kNumber, kSpace };

struct CharRange {
  char32_t first, last;  // inclusive
  CharClass cls;
};

extern const CharRange kCharRanges[];
extern const size_t kCharRangeCount;

// Class of one code point (kOther for anything outside the tables, unassigned included).
// kSpace is Unicode White_Space, which is also what Rust's char::is_whitespace tests, so the
// added-token lstrip/rstrip rules use it too.
CharClass char_class(char32_t cp);

}  // namespace precis::tokenize
