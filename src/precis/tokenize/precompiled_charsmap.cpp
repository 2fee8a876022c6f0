#include "precis/tokenize/precompiled_charsmap.h"

#include "precis/core/error.h"
#include "precis/tokenize/grapheme_break.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {
namespace {

// Darts-clone unit fields.
bool has_leaf(uint32_t unit) { return (unit >> 8) & 1; }
uint32_t value(uint32_t unit) { return unit & 0x7FFFFFFFu; }
uint32_t label(uint32_t unit) { return unit & 0x800000FFu; }
uint32_t offset(uint32_t unit) { return (unit >> 10) << ((unit & 0x200u) >> 6); }

uint32_t read_u32_le(std::string_view bytes, size_t at) {
  auto b = [&](size_t k) { return uint32_t(static_cast<unsigned char>(bytes[at + k])); };
  return b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

}  // namespace

PrecompiledCharsmap PrecompiledCharsmap::from_bytes(std::string_view bytes,
                                                    const std::string& where) {
  PrecompiledCharsmap map;
  if (bytes.empty()) return map;
  check(bytes.size() >= 4, where + ": precompiled_charsmap is " + std::to_string(bytes.size()) +
                               " bytes, too short for its trie size header");
  const uint32_t trie_size = read_u32_le(bytes, 0);
  check(trie_size % 4 == 0 && trie_size > 0 && trie_size <= bytes.size() - 4,
        where + ": precompiled_charsmap trie size " + std::to_string(trie_size) +
            " is not a positive multiple of 4 within the " + std::to_string(bytes.size() - 4) +
            " bytes that follow the header");
  map.trie_.resize(trie_size / 4);
  for (size_t i = 0; i < map.trie_.size(); ++i) map.trie_[i] = read_u32_le(bytes, 4 + 4 * i);
  map.pool_.assign(bytes.substr(4 + trie_size));
  return map;
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view chunk) const {
  if (trie_.empty()) return std::nullopt;
  // Common-prefix search; the first hit is the shortest key. A position outside the array
  // (only in a damaged file) ends the search like a label mismatch.
  size_t pos = offset(trie_[0]);
  for (char ch : chunk) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    pos ^= c;
    if (pos >= trie_.size()) return std::nullopt;
    const uint32_t unit = trie_[pos];
    if (label(unit) != c) return std::nullopt;
    pos ^= offset(unit);
    if (pos >= trie_.size()) return std::nullopt;
    if (has_leaf(unit)) {
      const size_t at = value(trie_[pos]);
      if (at >= pool_.size()) return std::nullopt;
      const size_t end = pool_.find('\0', at);
      return std::string_view(pool_).substr(at,
                                            (end == std::string::npos ? pool_.size() : end) - at);
    }
  }
  return std::nullopt;
}

std::string PrecompiledCharsmap::normalize(std::string_view text) const {
  if (trie_.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = grapheme_end(text, start);
    std::string_view grapheme = text.substr(start, end - start);
    start = end;
    if (grapheme.size() < 6) {
      if (auto norm = transform(grapheme)) {
        out += *norm;
        continue;
      }
    }
    for (size_t i = 0, len = 0; i < grapheme.size(); i += len) {
      decode_utf8_at(grapheme, i, len);
      std::string_view ch = grapheme.substr(i, len);
      auto norm = transform(ch);
      out += norm ? *norm : ch;
    }
  }
  return out;
}

}  // namespace precis::tokenize
