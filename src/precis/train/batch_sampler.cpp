#include "precis/train/batch_sampler.h"

#include <algorithm>
#include <numeric>

#include "precis/core/error.h"
#include "precis/core/rng.h"

namespace precis::train {

namespace {

constexpr uint64_t kSamplerStream = 0x5A3B'1E00'0000'0000ull;  // apart from dropout streams
// The order of token-budget batches: a stream of its own, apart from the examples' shuffle.
constexpr uint64_t kBatchOrderStream = 0x5A3B'1E00'8000'0000ull;

// Uniform integer in [0, bound) by rejection, drawing from (seed, stream) at *counter.
uint64_t uniform_below(uint64_t bound, uint64_t seed, uint64_t stream, uint64_t* counter) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  while (true) {
    uint64_t hi = random_bits(seed, stream, (*counter)++);
    uint64_t lo = random_bits(seed, stream, (*counter)++);
    uint64_t r = (hi << 32) | lo;
    if (r < limit) return r % bound;
  }
}

void shuffle(std::vector<int64_t>& v, uint64_t seed, uint64_t stream) {
  uint64_t counter = 0;
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[uniform_below(i, seed, stream, &counter)]);
}

std::vector<Batch> cut(const std::vector<int64_t>& order, int64_t batch_size, bool drop_last) {
  std::vector<Batch> batches;
  for (size_t i = 0; i < order.size(); i += size_t(batch_size)) {
    size_t end = std::min(order.size(), i + size_t(batch_size));
    if (drop_last && end - i < size_t(batch_size)) break;
    batches.emplace_back(order.begin() + i, order.begin() + end);
  }
  return batches;
}

}  // namespace

std::vector<int64_t> epoch_permutation(int64_t n, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  shuffle(v, seed, kSamplerStream + uint64_t(epoch));
  return v;
}

std::vector<Batch> epoch_batches(const std::vector<int64_t>& lengths, const SamplerOptions& o,
                                 int64_t epoch) {
  check(o.batch_size > 0, "per_device_train_batch_size must be positive");
  const int64_t n = int64_t(lengths.size());
  if (o.max_tokens_per_batch > 0) {
    // Shuffled first, then sorted by length (stably), as fairseq's batch_by_size on a shuffled
    // index: examples of one length stay in a random order, so a batch is a random draw among
    // them, another every epoch. Sorted from the file's order, a batch was the same run of
    // neighbours every epoch (the Debian data: 30 packages in alphabetical order, a family of
    // libraries at a time), and the loss swung with the family.
    std::vector<int64_t> order = epoch_permutation(n, o.seed, epoch);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return lengths[size_t(a)] < lengths[size_t(b)]; });
    std::vector<Batch> batches;
    Batch current;
    int64_t longest = 0;
    for (int64_t i : order) {
      int64_t len = std::max<int64_t>(1, lengths[size_t(i)]);
      check(len <= o.max_tokens_per_batch,
            "an example of " + std::to_string(len) + " tokens does not fit max_tokens_per_batch " +
                std::to_string(o.max_tokens_per_batch));
      int64_t longer = std::max(longest, len);
      if (!current.empty() && longer * int64_t(current.size() + 1) > o.max_tokens_per_batch) {
        batches.push_back(std::move(current));
        current.clear();
        longer = len;
      }
      current.push_back(i);
      longest = longer;
    }
    if (!current.empty()) batches.push_back(std::move(current));
    std::vector<int64_t> batch_order(batches.size());
    std::iota(batch_order.begin(), batch_order.end(), 0);
    shuffle(batch_order, o.seed, kBatchOrderStream + uint64_t(epoch));
    std::vector<Batch> shuffled;
    for (int64_t b : batch_order) shuffled.push_back(std::move(batches[size_t(b)]));
    return shuffled;
  }
  return cut(example_order(lengths, o, epoch), o.batch_size, o.drop_last);
}

std::vector<int64_t> example_order(const std::vector<int64_t>& lengths, const SamplerOptions& o, int64_t epoch) {
  std::vector<int64_t> order = epoch_permutation(int64_t(lengths.size()), o.seed, epoch);
  if (o.group_by_length) {
    // LengthGroupedSampler: megabatches of 50 batches, sorted by length, longest first.
    const size_t mega = size_t(50 * o.batch_size);
    for (size_t i = 0; i < order.size(); i += mega) {
      auto end = order.begin() + std::min(order.size(), i + mega);
      std::stable_sort(order.begin() + i, end, [&](int64_t a, int64_t b) {
        return lengths[size_t(a)] > lengths[size_t(b)];
      });
    }
    // The megabatch holding the longest example comes first (its first element swapped in).
    size_t longest = 0;
    for (size_t i = 0; i < order.size(); i += mega)
      if (lengths[size_t(order[i])] > lengths[size_t(order[longest])]) longest = i;
    if (!order.empty()) std::swap(order[0], order[longest]);
  }
  return order;
}

int64_t GlobalBatch::examples() const {
  int64_t n = 0;
  for (const Batch& s : shards) n += int64_t(s.size());
  return n;
}

int64_t GlobalBatch::first_row(int rank) const {
  int64_t n = 0;
  for (int r = 0; r < rank; ++r) n += int64_t(shards[size_t(r)].size());
  return n;
}

std::vector<GlobalBatch> epoch_global_batches(const std::vector<int64_t>& lengths, const SamplerOptions& o,
                                              int64_t epoch, int world) {
  check(world >= 1, "world size must be positive");
  std::vector<GlobalBatch> global;
  if (o.max_tokens_per_batch > 0) {
    std::vector<Batch> batches = epoch_batches(lengths, o, epoch);
    for (size_t k = 0; k < batches.size(); k += size_t(world)) {
      GlobalBatch g;
      g.shared_padding = false;
      for (size_t r = 0; r < size_t(world); ++r)
        g.shards.push_back(k + r < batches.size() ? std::move(batches[k + r]) : Batch{});
      global.push_back(std::move(g));
    }
    return global;
  }
  check(o.batch_size > 0, "per_device_train_batch_size must be positive");
  for (Batch& rows : cut(example_order(lengths, o, epoch), o.batch_size * world, o.drop_last)) {
    GlobalBatch g;
    const int64_t n = int64_t(rows.size());
    int64_t begin = 0;
    for (int r = 0; r < world; ++r) {
      // Full batches: batch_size each; a short last one as evenly as possible.
      int64_t take = n / world + (r < n % world ? 1 : 0);
      g.shards.emplace_back(rows.begin() + begin, rows.begin() + begin + take);
      begin += take;
    }
    global.push_back(std::move(g));
  }
  return global;
}

}  // namespace precis::train
