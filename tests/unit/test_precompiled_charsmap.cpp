// The Precompiled charsmap reader on a hand-built double array (keys "a" -> "X", "ab" -> "YZ"),
// the grapheme rule of HF's normalizer on it, and grapheme clusters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/tokenize/grapheme_break.h"
#include "precis/tokenize/precompiled_charsmap.h"

using precis::tokenize::grapheme_end;
using precis::tokenize::PrecompiledCharsmap;

namespace {

// Darts-clone units: an inner node carries its label, has_leaf (bit 8) and the XOR offset to
// its children (bits 10-31); a leaf unit carries the value (bit 31 set, as darts writes it).
uint32_t node(uint8_t label, bool leaf, uint32_t offset) {
  return label | (leaf ? 1u << 8 : 0u) | (offset << 10);
}
uint32_t leaf(uint32_t value) { return 0x80000000u | value; }

// Root at 0, children of the root at 1 ^ c; "a" at 0x60 with its leaf at 0x61 (value 0) and
// its children at 0x61 ^ c; "ab" at 0x03 with its leaf at 0x02 (value 2).
std::string tiny_charsmap() {
  std::vector<uint32_t> units(0x80, 0);
  units[0] = node(0, false, 1);
  units[0x60] = node('a', true, 1);
  units[0x61] = leaf(0);
  units[0x03] = node('b', true, 1);
  units[0x02] = leaf(2);
  std::string bytes;
  auto put = [&](uint32_t v) {
    for (int k = 0; k < 4; ++k) bytes += char((v >> (8 * k)) & 0xFF);
  };
  put(uint32_t(units.size() * 4));
  for (uint32_t u : units) put(u);
  bytes += std::string("X\0YZ\0", 5);
  return bytes;
}

}  // namespace

TEST(PrecompiledCharsmap, ShortestPrefixKeyWins) {
  auto map = PrecompiledCharsmap::from_bytes(tiny_charsmap(), "test");
  EXPECT_EQ(map.transform("a").value_or("none"), "X");
  EXPECT_EQ(map.transform("ab").value_or("none"), "X");  // "a" is found first
  EXPECT_FALSE(map.transform("b").has_value());
  EXPECT_FALSE(map.transform("").has_value());
  EXPECT_FALSE(map.transform(std::string("\0a", 2)).has_value());  // a NUL ends the key
}

TEST(PrecompiledCharsmap, NormalizesPerGraphemeCluster) {
  auto map = PrecompiledCharsmap::from_bytes(tiny_charsmap(), "test");
  EXPECT_EQ(map.normalize("abc"), "Xbc");
  // "a" + U+0301 is one cluster of 3 bytes: the replacement of its prefix "a" stands for the
  // whole cluster, the accent is dropped.
  EXPECT_EQ(map.normalize("a\u0301c"), "Xc");
  // Clusters of 6 bytes or more are looked up character by character: the accents stay.
  EXPECT_EQ(map.normalize("a\u0301\u0301\u0301"), "X\u0301\u0301\u0301");
  EXPECT_EQ(PrecompiledCharsmap().normalize("abc"), "abc");  // the empty map is the identity
}

TEST(PrecompiledCharsmap, RejectsDamagedBytes) {
  EXPECT_THROW(PrecompiledCharsmap::from_bytes("abc", "f.json"), precis::Error);
  std::string bytes = tiny_charsmap();
  bytes[0] = 3;  // trie size not a multiple of 4
  EXPECT_THROW(PrecompiledCharsmap::from_bytes(bytes, "f.json"), precis::Error);
  try {
    PrecompiledCharsmap::from_bytes(std::string("\xff\xff\x00\x00\x01", 5), "f.json");
    FAIL() << "expected an error";
  } catch (const precis::Error& e) {
    EXPECT_NE(std::string(e.what()).find("f.json: precompiled_charsmap trie size"),
              std::string::npos);
  }
}

TEST(GraphemeClusters, Uax29Rules) {
  auto clusters = [](const std::string& s) {
    std::vector<std::string> out;
    for (size_t i = 0, end; i < s.size(); i = end)
      out.push_back(s.substr(i, (end = grapheme_end(s, i)) - i));
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(clusters("ab"), (V{"a", "b"}));
  EXPECT_EQ(clusters("\r\n\n"), (V{"\r\n", "\n"}));
  EXPECT_EQ(clusters("e\u0301x"), (V{"e\u0301", "x"}));
  EXPECT_EQ(clusters("\U0001F1EB\U0001F1F7\U0001F1EF"), (V{"\U0001F1EB\U0001F1F7", "\U0001F1EF"}));
  EXPECT_EQ(clusters("\U0001F468\u200d\U0001F469!"), (V{"\U0001F468\u200d\U0001F469", "!"}));
  EXPECT_EQ(clusters("a\u200d\U0001F469"),
            (V{"a\u200d", "\U0001F469"}));  // GB11 needs a pictograph
  EXPECT_EQ(clusters("\u1100\u1161\u11a8\u1100"),
            (V{"\u1100\u1161\u11a8", "\u1100"}));  // Hangul jamo
}
