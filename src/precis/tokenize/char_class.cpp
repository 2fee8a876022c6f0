// Two-stage lookup over the generated ranges: 4352 blocks of 256 code points, each block
// index pointing at a shared 256-entry class row. Most blocks are all-kOther or all-letter,
// so the rows stay few (a few hundred) and a lookup is two loads.
#include <algorithm>
#include <array>
#include <vector>

#include "precis/tokenize/unicode_tables.h"

namespace precis::tokenize {
namespace {

struct ClassTable {
  std::array<uint16_t, 0x1100> block_row{};
  std::vector<std::array<CharClass, 256>> rows;

  ClassTable() {
    std::vector<CharClass> all(0x110000, CharClass::kOther);
    for (size_t i = 0; i < kCharRangeCount; ++i)
      for (char32_t cp = kCharRanges[i].first; cp <= kCharRanges[i].last; ++cp)
        all[cp] = kCharRanges[i].cls;
    for (size_t block = 0; block < block_row.size(); ++block) {
      std::array<CharClass, 256> row;
      for (size_t j = 0; j < 256; ++j) row[j] = all[block * 256 + j];
      size_t found = rows.size();
      for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r] == row) found = r;
      if (found == rows.size()) rows.push_back(row);
      block_row[block] = static_cast<uint16_t>(found);
    }
  }
};

const ClassTable& class_table() {
  static const ClassTable t;
  return t;
}

}  // namespace

CharClass char_class(char32_t cp) {
  if (cp >= 0x110000) return CharClass::kOther;
  const ClassTable& t = class_table();
  return t.rows[t.block_row[cp >> 8]][cp & 0xFF];
}

bool is_word_char(char32_t cp) {
  const CodePointRange* end = kWordRanges + kWordRangeCount;
  const CodePointRange* r =
      std::upper_bound(kWordRanges, end, cp,
                       [](char32_t c, const CodePointRange& range) { return c < range.first; });
  return r != kWordRanges && cp <= (r - 1)->last;
}

}  // namespace precis::tokenize
