#include "precis/tokenize/bpe_trainer.h"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <queue>

#include "precis/core/error.h"
#include "precis/core/progress.h"
#include "precis/tokenize/byte_level.h"
#include "precis/tokenize/gpt2_split.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {

namespace {

using PieceCounts = std::unordered_map<std::string_view, uint64_t>;

void count_pieces(std::string_view text, PieceCounts& counts,
                  std::vector<std::string_view>& pieces) {
  pieces.clear();
  split_gpt2(text, pieces);
  for (std::string_view p : pieces) ++counts[p];
}

}  // namespace

void WordCounts::add_text(std::string_view text) {
  check(find_invalid_utf8(text) == std::string_view::npos, "text is not valid UTF-8");
  PieceCounts counts;
  std::vector<std::string_view> pieces;
  count_pieces(text, counts, pieces);
  for (const auto& [piece, n] : counts) counts_[std::string(piece)] += n;
}

template <class Text>
void WordCounts::add_many(const std::vector<Text>& texts) {
  int threads = omp_get_max_threads();
  std::vector<PieceCounts> per_thread(threads);
  size_t first_invalid = texts.size();
#pragma omp parallel num_threads(threads)
  {
    PieceCounts& counts = per_thread[omp_get_thread_num()];
    std::vector<std::string_view> pieces;
    size_t invalid = texts.size();
#pragma omp for schedule(dynamic, 256)
    for (size_t i = 0; i < texts.size(); ++i) {
      if (find_invalid_utf8(texts[i]) != std::string_view::npos) {
        invalid = std::min(invalid, i);
        continue;
      }
      count_pieces(texts[i], counts, pieces);
    }
#pragma omp critical
    first_invalid = std::min(first_invalid, invalid);
  }
  check(first_invalid == texts.size(),
        "text " + std::to_string(first_invalid) + " is not valid UTF-8");
  for (const PieceCounts& counts : per_thread)
    for (const auto& [piece, n] : counts) counts_[std::string(piece)] += n;
}

void WordCounts::add_texts(const std::vector<std::string>& texts) { add_many(texts); }
void WordCounts::add_texts(const std::vector<std::string_view>& texts) { add_many(texts); }

void WordCounts::merge(const WordCounts& other) {
  for (const auto& [piece, n] : other.counts_) counts_[piece] += n;
}

namespace {

using SymbolId = uint32_t;
using PairKey = uint64_t;  // left symbol << 32 | right symbol

PairKey pair_key(SymbolId left, SymbolId right) { return (uint64_t{left} << 32) | right; }
SymbolId left_of(PairKey key) { return SymbolId(key >> 32); }
SymbolId right_of(PairKey key) { return SymbolId(key); }

// Pair -> count (occurrences weighted by word count), open addressing. Looked up for every
// neighbour of every merge, so it is the hot table of training.
class PairCounts {
 public:
  PairCounts() { rehash(size_t{1} << 16); }

  int64_t& operator[](PairKey key) {
    size_t i = slot(key);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].count;
      if (slots_[i].key == kEmpty) break;
    }
    if (2 * (used_ + 1) > slots_.size()) {
      rehash(2 * slots_.size());
      return (*this)[key];
    }
    ++used_;
    slots_[i].key = key;
    return slots_[i].count;
  }

  // Every pair in the queue has a count, so a miss is a bug.
  int64_t at(PairKey key) const {
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].count;
      check(slots_[i].key != kEmpty, "BPE trainer: pair without a count");
    }
  }

 private:
  static constexpr PairKey kEmpty = ~PairKey{0};  // ids stay below 2^31
  struct Slot {
    PairKey key = kEmpty;
    int64_t count = 0;
  };
  size_t slot(PairKey key) const { return (key * 0x9E3779B97F4A7C15ull) >> shift_; }
  void rehash(size_t n) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    shift_ = 64 - std::countr_zero(n);
    for (const Slot& s : old) {
      if (s.key == kEmpty) continue;
      size_t i = slot(s.key);
      while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t used_ = 0, mask_ = 0;
  int shift_ = 64;
};

// A candidate merge: a pair, its count when queued, and the words it may be found in (an
// index into the trainer's position lists). As in HF, the best entry is the one with the
// highest count, then the smallest pair; equal entries (the same pair queued twice) come out
// oldest first.
struct QueueEntry {
  int64_t count;
  PairKey pair;
  uint64_t order;
  uint32_t positions;
};
struct QueueLess {
  bool operator()(const QueueEntry& x, const QueueEntry& y) const {
    if (x.count != y.count) return x.count < y.count;
    if (x.pair != y.pair) return x.pair > y.pair;
    return x.order > y.order;
  }
};

// Replaces, left to right, every adjacent (left, right) of `word` by `merged`, and reports
// each pair this destroys (-1) or creates (+1) next to a merge, as HF's Word::merge does. The
// merged pair itself is not reported, except where one merge breaks an overlapping one
// ("a a a" merging (a, a) loses the second (a, a)).
template <class Change>
void merge_word(std::vector<SymbolId>& word, SymbolId left, SymbolId right, SymbolId merged,
                Change&& change) {
  size_t n = word.size(), out = 0, in = 0;
  while (in < n) {
    if (word[in] == left && in + 1 < n && word[in + 1] == right) {
      if (out > 0) {
        change(pair_key(word[out - 1], left), -1);
        change(pair_key(word[out - 1], merged), 1);
      }
      word[out++] = merged;
      in += 2;
      if (in < n) {
        change(pair_key(right, word[in]), -1);
        change(pair_key(merged, word[in]), 1);
      }
    } else {
      word[out++] = word[in++];
    }
  }
  word.resize(out);
}

class Trainer {
 public:
  Trainer(const WordCounts& words, const BpeTrainerOptions& options) : options_(options) {
    for (const std::string& special : options.special_tokens) add_token(special);
    // The ByteLevel alphabet (every byte's character), sorted by code point as HF sorts it.
    std::vector<int> bytes(256);
    for (int b = 0; b < 256; ++b) bytes[b] = b;
    std::sort(bytes.begin(), bytes.end(),
              [](int x, int y) { return byte_to_char(uint8_t(x)) < byte_to_char(uint8_t(y)); });
    SymbolId byte_symbol[256];
    for (int b : bytes) byte_symbol[b] = add_token(byte_level_encode(std::string(1, char(b))));

    // A word of one symbol has no pair and never changes: leave it out.
    words_.reserve(words.size());
    for (const auto& [piece, count] : words.counts()) {
      if (piece.size() < 2) continue;
      std::vector<SymbolId> word(piece.size());
      for (size_t i = 0; i < piece.size(); ++i) word[i] = byte_symbol[uint8_t(piece[i])];
      words_.push_back(std::move(word));
      word_counts_.push_back(int64_t(count));
    }
  }

  BpeModelData run() {
    size_t target = options_.vocab_size;
    if (options_.mask_token && !token_ids_.contains(*options_.mask_token)) --target;
    check(target >= id_to_token_.size(),
          "vocab_size " + std::to_string(options_.vocab_size) +
              " cannot hold the special tokens and the 256 byte tokens (at least " +
              std::to_string(id_to_token_.size() + (options_.vocab_size - target)) + ")");
    count_pairs();

    std::optional<Progress> progress;
    if (options_.show_progress)
      progress.emplace("BPE merges", int64_t(target - id_to_token_.size()), "tokens");
    std::vector<std::pair<PairKey, SymbolId>> merges;
    while (id_to_token_.size() < target && !queue_.empty()) {
      QueueEntry top = queue_.top();
      queue_.pop();
      int64_t now = pair_counts_.at(top.pair);
      if (top.count != now) {  // stale: queue it again with its current count
        top.count = now;
        queue_.push(top);
        continue;
      }
      if (top.count < 1 || int64_t(options_.min_frequency) > top.count) break;

      SymbolId left = left_of(top.pair), right = right_of(top.pair);
      size_t vocab_before = id_to_token_.size();
      SymbolId merged = add_token(id_to_token_[left] + id_to_token_[right]);
      merges.emplace_back(top.pair, merged);
      apply_merge(left, right, merged, positions_[top.positions]);
      release_positions(top.positions);
      if (progress && id_to_token_.size() > vocab_before) progress->advance(1);
    }
    if (progress) progress->finish();

    BpeModelData out;
    // A pair merged twice keeps its last rank (HF collects the list into a map).
    std::unordered_map<PairKey, size_t> last;
    for (size_t i = 0; i < merges.size(); ++i) last[merges[i].first] = i;
    for (size_t i = 0; i < merges.size(); ++i) {
      PairKey key = merges[i].first;
      if (last[key] != i) continue;
      out.merges.emplace_back(id_to_token_[left_of(key)], id_to_token_[right_of(key)]);
    }
    if (options_.mask_token) add_token(*options_.mask_token);
    for (size_t id = 0; id < id_to_token_.size(); ++id)
      out.vocab.emplace(id_to_token_[id], int32_t(id));
    return out;
  }

 private:
  SymbolId add_token(const std::string& token) {
    auto [it, inserted] = token_ids_.emplace(token, SymbolId(id_to_token_.size()));
    if (inserted) id_to_token_.push_back(token);
    return it->second;
  }

  uint32_t new_positions() {
    if (!free_positions_.empty()) {
      uint32_t i = free_positions_.back();
      free_positions_.pop_back();
      return i;
    }
    positions_.emplace_back();
    return uint32_t(positions_.size() - 1);
  }
  void release_positions(uint32_t i) {
    positions_[i].clear();
    positions_[i].shrink_to_fit();
    free_positions_.push_back(i);
  }

  void push(PairKey pair, int64_t count, std::vector<uint32_t>&& words) {
    uint32_t p = new_positions();
    positions_[p] = std::move(words);
    queue_.push({count, pair, next_order_++, p});
  }

  void count_pairs() {
    std::unordered_map<PairKey, std::vector<uint32_t>> where;
    for (uint32_t w = 0; w < words_.size(); ++w) {
      const std::vector<SymbolId>& word = words_[w];
      for (size_t i = 0; i + 1 < word.size(); ++i) {
        PairKey key = pair_key(word[i], word[i + 1]);
        pair_counts_[key] += word_counts_[w];
        std::vector<uint32_t>& at = where[key];
        if (at.empty() || at.back() != w) at.push_back(w);
      }
    }
    for (auto& [pair, words] : where) {
      int64_t count = pair_counts_.at(pair);
      if (count > 0) push(pair, count, std::move(words));
    }
  }

  // Merges (left, right) in the given words, updates the counts of the neighbouring pairs,
  // and queues every pair that gained occurrences, with the words where it did.
  void apply_merge(SymbolId left, SymbolId right, SymbolId merged, const std::vector<uint32_t>& words) {
    gained_.clear();
    for (uint32_t w : words) {
      int64_t count = word_counts_[w];
      merge_word(words_[w], left, right, merged, [&](PairKey key, int delta) {
        pair_counts_[key] += delta * count;
        if (delta > 0) {
          std::vector<uint32_t>& at = gained_[key];
          if (at.empty() || at.back() != w) at.push_back(w);
        }
      });
    }
    for (auto& [pair, at] : gained_) {
      int64_t count = pair_counts_.at(pair);
      if (count > 0) push(pair, count, std::move(at));
    }
  }

  const BpeTrainerOptions& options_;
  std::vector<std::string> id_to_token_;
  std::unordered_map<std::string, SymbolId> token_ids_;
  std::vector<std::vector<SymbolId>> words_;
  std::vector<int64_t> word_counts_;
  PairCounts pair_counts_;
  std::priority_queue<QueueEntry, std::vector<QueueEntry>, QueueLess> queue_;
  std::vector<std::vector<uint32_t>> positions_;
  std::vector<uint32_t> free_positions_;
  uint64_t next_order_ = 0;
  std::unordered_map<PairKey, std::vector<uint32_t>> gained_;
};

}  // namespace

BpeModelData train_bpe(const WordCounts& words, const BpeTrainerOptions& options) {
  return Trainer(words, options).run();
}

Tokenizer train_tokenizer(const WordCounts& words, const BpeTrainerOptions& options,
                          const TokenizerSettings& settings) {
  BpeModelData data = train_bpe(words, options);
  return Tokenizer::from_vocab_and_merges(std::move(data.vocab), std::move(data.merges), settings);
}

}  // namespace precis::tokenize
