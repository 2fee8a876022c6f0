#include "precis/tokenize/bpe.h"

#include <algorithm>
#include <bit>
#include <queue>

#include "precis/core/error.h"
#include "precis/tokenize/byte_level.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {

void MergeTable::reserve(size_t n) {
  size_t cap = std::bit_ceil(std::max<size_t>(16, n * 2));
  slots_.assign(cap, Entry{});
  mask_ = cap - 1;
  shift_ = 64 - std::countr_zero(cap);
}

void MergeTable::insert(int32_t left, int32_t right, int32_t rank, int32_t merged) {
  uint64_t key = pack(left, right);
  for (size_t i = slot(key);; i = (i + 1) & mask_) {
    Entry& e = slots_[i];
    if (e.key == key || e.key == kEmpty) {
      e = {key, rank, merged};
      return;
    }
  }
}

Bpe::Bpe(std::unordered_map<std::string, int32_t> vocab,
         std::vector<std::pair<std::string, std::string>> merges,
         std::optional<std::string> unk_token, bool fuse_unk, bool ignore_merges)
    : vocab_(std::move(vocab)),
      merges_(std::move(merges)),
      unk_token_(std::move(unk_token)),
      fuse_unk_(fuse_unk),
      ignore_merges_(ignore_merges) {
  auto id_of = [&](const std::string& token, size_t rank) {
    auto it = vocab_.find(token);
    check(it != vocab_.end(), "merge " + std::to_string(rank) + " ('" + merges_[rank].first +
                                  "' '" + merges_[rank].second + "') needs token '" + token +
                                  "', which is not in the vocabulary");
    return it->second;
  };
  table_.reserve(merges_.size());
  for (size_t r = 0; r < merges_.size(); ++r) {
    const auto& [a, b] = merges_[r];
    table_.insert(id_of(a, r), id_of(b, r), static_cast<int32_t>(r), id_of(a + b, r));
  }
  for (int b = 0; b < 256; ++b) {
    std::string ch;
    append_utf8(ch, byte_to_char(static_cast<uint8_t>(b)));
    auto it = vocab_.find(ch);
    byte_id_[b] = it == vocab_.end() ? -1 : it->second;
  }
  if (unk_token_) {
    auto it = vocab_.find(*unk_token_);
    check(it != vocab_.end(), "unk_token '" + *unk_token_ + "' is not in the vocabulary");
    unk_id_ = it->second;
  }
}

namespace {

struct Symbol {
  int32_t id;
  int32_t prev, next;  // neighbours in the linked list, -1 at the ends
  bool alive;
};

// A candidate merge of symbols[pos] with its right neighbour. The queue pops the lowest rank
// first and, among equal ranks, the leftmost position, as HF's BinaryHeap order does; stale
// entries are recognised on pop and dropped.
struct Candidate {
  int32_t rank, pos, merged;
  bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

struct Scratch {
  std::vector<Symbol> symbols;
  std::vector<Candidate> heap;
};

}  // namespace

void Bpe::encode_word(std::string_view bytes, std::vector<int32_t>& out) const {
  if (ignore_merges_) {
    auto it = vocab_.find(byte_level_encode(bytes));
    if (it != vocab_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  thread_local Scratch scratch;
  auto& sym = scratch.symbols;
  sym.clear();
  for (char c : bytes) {
    int32_t id = byte_id_[static_cast<uint8_t>(c)];
    if (id < 0) {
      if (!unk_id_) continue;
      if (fuse_unk_ && !sym.empty() && sym.back().id == *unk_id_) continue;
      id = *unk_id_;
    }
    int32_t n = static_cast<int32_t>(sym.size());
    sym.push_back({id, n - 1, -1, true});
    if (n > 0) sym[n - 1].next = n;
  }
  if (sym.size() > 1) {
    auto& heap = scratch.heap;
    heap.clear();
    auto push = [&](int32_t pos) {
      if (const MergeTable::Entry* e = table_.find(sym[pos].id, sym[sym[pos].next].id)) {
        heap.push_back({e->rank, pos, e->merged});
        std::push_heap(heap.begin(), heap.end(), std::greater<>{});
      }
    };
    for (int32_t i = 0; i + 1 < static_cast<int32_t>(sym.size()); ++i) push(i);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
      Candidate top = heap.back();
      heap.pop_back();
      Symbol& left = sym[top.pos];
      if (!left.alive || left.next < 0) continue;
      const MergeTable::Entry* e = table_.find(left.id, sym[left.next].id);
      if (!e || e->merged != top.merged) continue;  // the pair changed since it was queued
      Symbol& right = sym[left.next];
      left.id = top.merged;
      right.alive = false;
      left.next = right.next;
      if (left.next >= 0) sym[left.next].prev = top.pos;
      if (left.prev >= 0) push(left.prev);
      if (left.next >= 0) push(top.pos);
    }
  }
  for (const Symbol& s : sym)
    if (s.alive) out.push_back(s.id);
}

}  // namespace precis::tokenize
