// GPT-2's reversible byte <-> character mapping (bytes_to_unicode): every byte becomes a
// printable character so that BPE tokens are plain strings. Printable Latin-1 bytes
// (0x21-0x7E, 0xA1-0xAC, 0xAE-0xFF) map to themselves; the other 68 bytes, in increasing
// order, map to U+0100, U+0101, ... (space 0x20 -> U+0120 'Ġ', '\n' -> U+010A 'Ċ').
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace precis::tokenize {

char32_t byte_to_char(uint8_t byte);

// The byte a mapped character stands for, or -1 when `c` is not in the table.
int char_to_byte(char32_t c);

// Maps every byte of `bytes` to its character (the token-string form).
std::string byte_level_encode(std::string_view bytes);

// Inverse of byte_level_encode for a token string; nullopt when some character of it is not
// in the table (HF then keeps the token's own UTF-8 bytes).
std::optional<std::string> byte_level_decode(std::string_view token);

}  // namespace precis::tokenize
