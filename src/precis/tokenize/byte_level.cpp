#include "precis/tokenize/byte_level.h"

#include <array>

#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

struct ByteTable {
  std::array<char32_t, 256> to_char{};
  std::array<std::string, 256> to_string;

  ByteTable() {
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      to_char[b] = printable ? static_cast<char32_t>(b) : next++;
      append_utf8(to_string[b], to_char[b]);
    }
  }
};

const ByteTable& table() {
  static const ByteTable t;
  return t;
}

}  // namespace

char32_t byte_to_char(uint8_t byte) { return table().to_char[byte]; }

int char_to_byte(char32_t c) {
  // The image of the table is U+0021..U+0143; inside it only U+007F..U+00A0 and U+00AD are
  // the identity-excluded holes, which the shifted block 0x100.. covers instead.
  if (c >= 0x100 && c < 0x100 + 68) {
    static const std::array<uint8_t, 68> shifted = [] {
      std::array<uint8_t, 68> s{};
      for (int b = 0; b < 256; ++b)
        if (table().to_char[b] >= 0x100) s[table().to_char[b] - 0x100] = static_cast<uint8_t>(b);
      return s;
    }();
    return shifted[c - 0x100];
  }
  if (c < 0x100 && table().to_char[c] == c) return static_cast<int>(c);
  return -1;
}

std::string byte_level_encode(std::string_view bytes) {
  const ByteTable& t = table();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char b : bytes) out += t.to_string[static_cast<uint8_t>(b)];
  return out;
}

std::optional<std::string> byte_level_decode(std::string_view token) {
  if (find_invalid_utf8(token) != std::string_view::npos) return std::nullopt;
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size();) {
    size_t len = 0;
    int b = char_to_byte(decode_utf8_at(token, i, len));
    if (b < 0) return std::nullopt;
    out += static_cast<char>(b);
    i += len;
  }
  return out;
}

}  // namespace precis::tokenize
