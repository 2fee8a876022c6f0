// The `Precompiled` normalizer of HF `tokenizers` (SentencePiece's precompiled_charsmap, e.g.
// nmt_nfkc): a Darts-clone double-array trie whose keys are UTF-8 strings and whose values are
// offsets of NUL-terminated replacements in a string pool (tokenizers'
// tokenizers/src/normalizers/precompiled.rs, over the spm_precompiled crate).
//
// Serialized form (base64 in tokenizer.json's "precompiled_charsmap"):
//   u32 LE trie_size (bytes) | trie_size/4 u32 LE units | replacement pool (the rest)
// A unit packs: bit 8 has_leaf, bits 0-7 (and bit 31) the label, bits 10-31 an offset
// (shifted left by 8 when bit 9 is set), bits 0-30 the value of a leaf unit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace precis::tokenize {

class PrecompiledCharsmap {
 public:
  PrecompiledCharsmap() = default;
  // Throws precis::Error naming `where` when the bytes are not a charsmap. Empty bytes give
  // the identity map.
  static PrecompiledCharsmap from_bytes(std::string_view bytes, const std::string& where);

  // Replacement of the shortest key that is a prefix of `chunk`, if any.
  std::optional<std::string_view> transform(std::string_view chunk) const;

  // HF's Precompiled::normalize over valid UTF-8: per extended grapheme cluster shorter than
  // 6 bytes, the replacement of its shortest prefix key stands for the whole cluster (the rest
  // of the cluster is dropped); otherwise each character is replaced when it is a key.
  std::string normalize(std::string_view text) const;

  bool empty() const { return trie_.empty(); }

 private:
  std::vector<uint32_t> trie_;  // double-array units
  std::string pool_;            // NUL-terminated replacements
};

}  // namespace precis::tokenize
