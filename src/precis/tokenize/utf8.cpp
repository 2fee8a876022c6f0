#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

// Length of the well-formed prefix of a sequence starting at s[i]: 0 when s[i] cannot start
// one; otherwise the number of bytes that still fit the pattern (== expected length when the
// whole sequence is well formed). The ranges for the second byte are those of the Unicode
// table of well-formed byte sequences (Table 3-7).
size_t well_formed_prefix(std::string_view s, size_t i, size_t& expected) {
  auto c = static_cast<unsigned char>(s[i]);
  unsigned char lo = 0x80, hi = 0xBF;
  if (c < 0x80) return expected = 1, 1;
  if (c < 0xC2) return expected = 1, 0;
  if (c < 0xE0) {
    expected = 2;
  } else if (c < 0xF0) {
    expected = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c < 0xF5) {
    expected = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return expected = 1, 0;
  }
  size_t n = 1;
  for (; n < expected && i + n < s.size(); ++n) {
    auto b = static_cast<unsigned char>(s[i + n]);
    if (n == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) break;
  }
  return n;
}

}  // namespace

size_t find_invalid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t expected = 0;
    size_t n = well_formed_prefix(s, i, expected);
    if (n != expected) return i;
    i += n;
  }
  return std::string_view::npos;
}

char32_t decode_utf8_lossy_at(std::string_view s, size_t i, size_t& len) {
  size_t expected = 0;
  if (well_formed_prefix(s, i, expected) != expected) return len = 1, 0xFFFD;
  return decode_utf8_at(s, i, len);
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string utf8_lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    size_t expected = 0;
    size_t n = well_formed_prefix(bytes, i, expected);
    if (n == expected) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD for the maximal ill-formed subpart
      i += n == 0 ? 1 : n;
    }
  }
  return out;
}

}  // namespace precis::tokenize
