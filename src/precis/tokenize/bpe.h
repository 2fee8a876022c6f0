// The byte-level BPE model: vocabulary, ranked merges, and the merge loop for one word.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace precis::tokenize {

// (left id, right id) -> (rank, merged id), open addressing: the merge loop does one lookup
// per adjacent pair, so this is the hot table.
class MergeTable {
 public:
  struct Entry {
    uint64_t key = kEmpty;
    int32_t rank = 0;
    int32_t merged = 0;
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  void reserve(size_t n);
  // A later insert of the same pair wins, as in HF (a HashMap collected from the list).
  void insert(int32_t left, int32_t right, int32_t rank, int32_t merged);
  const Entry* find(int32_t left, int32_t right) const {
    uint64_t key = pack(left, right);
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.key == key) return &e;
      if (e.key == kEmpty) return nullptr;
    }
  }

 private:
  static uint64_t pack(int32_t l, int32_t r) {
    return (uint64_t{static_cast<uint32_t>(l)} << 32) | static_cast<uint32_t>(r);
  }
  size_t slot(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ull) >> shift_; }

  std::vector<Entry> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
};

class Bpe {
 public:
  // `vocab`: token string -> id; `merges`: pairs of token strings in rank order. Throws
  // precis::Error when a merge names a token (or makes one) that is not in the vocabulary.
  Bpe(std::unordered_map<std::string, int32_t> vocab,
      std::vector<std::pair<std::string, std::string>> merges,
      std::optional<std::string> unk_token = std::nullopt, bool fuse_unk = false,
      bool ignore_merges = false);

  // Appends the ids of one pre-token given as raw bytes (mapped to byte-level characters
  // internally). Bytes whose character is not in the vocabulary become the unknown token,
  // or vanish when there is none, as in HF.
  void encode_word(std::string_view bytes, std::vector<int32_t>& out) const;

  const std::unordered_map<std::string, int32_t>& vocab() const { return vocab_; }
  const std::vector<std::pair<std::string, std::string>>& merges() const { return merges_; }
  const std::optional<std::string>& unk_token() const { return unk_token_; }
  bool fuse_unk() const { return fuse_unk_; }
  bool ignore_merges() const { return ignore_merges_; }

 private:
  std::unordered_map<std::string, int32_t> vocab_;
  std::vector<std::pair<std::string, std::string>> merges_;
  std::optional<std::string> unk_token_;
  std::optional<int32_t> unk_id_;
  bool fuse_unk_ = false;
  bool ignore_merges_ = false;
  MergeTable table_;
  int32_t byte_id_[256];  // vocab id of each byte's character, -1 if absent
};

}  // namespace precis::tokenize
