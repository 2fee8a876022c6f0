#include "precis/tokenize/grapheme_break.h"

#include <algorithm>

#include "precis/tokenize/utf8.h"

namespace precis::tokenize {

GraphemeBreak grapheme_break(char32_t cp) {
  const GraphemeBreakRange* end = kGraphemeBreakRanges + kGraphemeBreakRangeCount;
  const GraphemeBreakRange* it =
      std::upper_bound(kGraphemeBreakRanges, end, cp,
                       [](char32_t c, const GraphemeBreakRange& r) { return c < r.first; });
  if (it == kGraphemeBreakRanges) return GraphemeBreak::kOther;
  --it;
  return cp <= it->last ? it->value : GraphemeBreak::kOther;
}

size_t grapheme_end(std::string_view text, size_t start) {
  using G = GraphemeBreak;
  size_t len = 0;
  G prev = grapheme_break(decode_utf8_at(text, start, len));
  size_t pos = start + len;
  // State for GB11 (ExtPict Extend* ZWJ x ExtPict) and GB12/13 (pairs of regional indicators).
  bool pictographic_run = prev == G::kExtendedPictographic;  // ExtPict Extend* so far
  int regional_indicators = prev == G::kRegionalIndicator ? 1 : 0;
  while (pos < text.size()) {
    G next = grapheme_break(decode_utf8_at(text, pos, len));
    bool join;
    if (prev == G::kCR && next == G::kLF)
      join = true;  // GB3
    else if (prev == G::kCR || prev == G::kLF || prev == G::kControl)
      join = false;  // GB4
    else if (next == G::kCR || next == G::kLF || next == G::kControl)
      join = false;  // GB5
    else if (prev == G::kL && (next == G::kL || next == G::kV || next == G::kLV || next == G::kLVT))
      join = true;  // GB6
    else if ((prev == G::kLV || prev == G::kV) && (next == G::kV || next == G::kT))
      join = true;  // GB7
    else if ((prev == G::kLVT || prev == G::kT) && next == G::kT)
      join = true;  // GB8
    else if (next == G::kExtend || next == G::kZWJ || next == G::kSpacingMark)
      join = true;  // GB9, 9a
    else if (prev == G::kPrepend)
      join = true;  // GB9b
    else if (prev == G::kZWJ && next == G::kExtendedPictographic && pictographic_run)
      join = true;  // GB11
    else if (prev == G::kRegionalIndicator && next == G::kRegionalIndicator)
      join = regional_indicators % 2 == 1;  // GB12, GB13
    else
      join = false;  // GB999
    if (!join) break;
    // pictographic_run: an ExtPict followed only by Extend, then possibly one ZWJ.
    if (next == G::kExtendedPictographic)
      pictographic_run = true;
    else if (next == G::kExtend)
      pictographic_run = pictographic_run && prev != G::kZWJ;
    else if (next == G::kZWJ)
      pictographic_run = pictographic_run && prev != G::kZWJ;
    else
      pictographic_run = false;
    regional_indicators = next == G::kRegionalIndicator ? regional_indicators + 1 : 0;
    prev = next;
    pos += len;
  }
  return pos;
}

}  // namespace precis::tokenize
