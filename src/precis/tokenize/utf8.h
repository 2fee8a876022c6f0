// precis's UTF-8: validation, decoding and encoding, for the tokenizers, the dataset readers,
// the server and the sentence splitter alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace precis::tokenize {

// Offset of the first byte that does not start a well-formed UTF-8 sequence (overlongs,
// surrogates and code points past U+10FFFF are ill-formed), or npos when `s` is valid.
size_t find_invalid_utf8(std::string_view s);

// Decodes the code point starting at s[i] of a string already known to be valid UTF-8 and
// stores its byte length in `len`.
inline char32_t decode_utf8_at(std::string_view s, size_t i, size_t& len) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  if (c < 0x80) return len = 1, c;
  if (c < 0xE0) return len = 2, ((c & 0x1Fu) << 6) | (b(1) & 0x3Fu);
  if (c < 0xF0) return len = 3, ((c & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu);
  len = 4;
  return ((c & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) | ((b(2) & 0x3Fu) << 6) | (b(3) & 0x3Fu);
}

// Decodes the code point starting at s[i] of any bytes: a byte that does not start a
// well-formed sequence (ill-formed or cut short) reads as U+FFFD with length 1, so a loop
// over `s` visits every byte and keeps the ill-formed ones as they are.
char32_t decode_utf8_lossy_at(std::string_view s, size_t i, size_t& len);

void append_utf8(std::string& out, char32_t cp);

// Decodes bytes as UTF-8, replacing each maximal ill-formed subpart with one U+FFFD: the
// Unicode "best practice" that both Rust's String::from_utf8_lossy (what HF's ByteLevel
// decoder calls) and Python's bytes.decode(errors="replace") follow. So E2 82 41 gives
// U+FFFD 'A' (one replacement for the truncated sequence), while F0 80 80 gives three
// (0x80 can never follow F0, so each byte is its own ill-formed subpart).
std::string utf8_lossy(std::string_view bytes);

}  // namespace precis::tokenize
