#include "precis/eval/python_text.h"

#include <algorithm>
#include <array>
#include <vector>

#include "precis/tokenize/utf8.h"

namespace precis::eval::python_text {

uint8_t flags(char32_t cp) {
  if (cp < 0x80) {  // the common case, without the search
    static const auto ascii = [] {
      std::array<uint8_t, 0x80> t{};
      for (size_t i = 0; i < kCharRunCount && kCharRuns[i].first < 0x80; ++i)
        for (char32_t c = kCharRuns[i].first; c <= kCharRuns[i].last && c < 0x80; ++c)
          t[c] = kCharRuns[i].flags;
      return t;
    }();
    return ascii[cp];
  }
  const CharRun* end = kCharRuns + kCharRunCount;
  const CharRun* run = std::upper_bound(kCharRuns, end, cp,
                                        [](char32_t c, const CharRun& r) { return c < r.first; });
  if (run == kCharRuns) return 0;
  --run;
  return cp <= run->last ? run->flags : 0;
}

namespace {

const LowerMapping* lower_mapping(char32_t cp) {
  const LowerMapping* end = kLowerMappings + kLowerMappingCount;
  const LowerMapping* m = std::lower_bound(
      kLowerMappings, end, cp, [](const LowerMapping& l, char32_t c) { return l.code_point < c; });
  return m != end && m->code_point == cp ? m : nullptr;
}

constexpr char32_t kCapitalSigma = 0x3A3, kSmallSigma = 0x3C3, kFinalSigma = 0x3C2;

// CPython's Final_Sigma context: a cased letter before (case-ignorable ones skipped) and none
// after.
bool final_sigma(const std::vector<char32_t>& cps, size_t i) {
  size_t j = i;
  while (j > 0 && (flags(cps[j - 1]) & kCaseIgnorable)) --j;
  if (j == 0 || !(flags(cps[j - 1]) & kCased)) return false;
  size_t k = i + 1;
  while (k < cps.size() && (flags(cps[k]) & kCaseIgnorable)) ++k;
  return k == cps.size() || !(flags(cps[k]) & kCased);
}

}  // namespace

std::string lower(std::string_view s) {
  bool ascii = true;
  for (char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  std::string out(s);
  if (ascii) {
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  // Each code point with its bytes; an ill-formed byte is kept as it is.
  std::vector<char32_t> cps;
  std::vector<size_t> starts;
  for (size_t i = 0, n = 0; i < s.size(); i += n) {
    starts.push_back(i);
    cps.push_back(tokenize::decode_utf8_lossy_at(s, i, n));
  }
  starts.push_back(s.size());
  out.clear();
  for (size_t i = 0; i < cps.size(); ++i) {
    const size_t n = starts[i + 1] - starts[i];
    if (cps[i] == kCapitalSigma) {
      tokenize::append_utf8(out, final_sigma(cps, i) ? kFinalSigma : kSmallSigma);
    } else if (const LowerMapping* m = lower_mapping(cps[i])) {
      tokenize::append_utf8(out, m->lower[0]);
      if (m->lower[1]) tokenize::append_utf8(out, m->lower[1]);
    } else {
      out.append(s.substr(starts[i], n));
    }
  }
  return out;
}

std::string_view strip(std::string_view s) {
  s = rstrip(s);
  size_t n = 0;
  while (!s.empty() && is_space(tokenize::decode_utf8_lossy_at(s, 0, n))) s.remove_prefix(n);
  return s;
}

std::string_view rstrip(std::string_view s) {
  while (!s.empty()) {
    size_t start = s.size() - 1;  // back to the start of the last code point
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 &&
           s.size() - start < 4)
      --start;
    size_t n = 0;
    const char32_t cp = tokenize::decode_utf8_lossy_at(s, start, n);
    if (start + n != s.size()) return s;  // the last byte is not the end of a well-formed sequence
    if (!is_space(cp)) return s;
    s.remove_suffix(n);
  }
  return s;
}

}  // namespace precis::eval::python_text
