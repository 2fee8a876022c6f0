// Which examples form each batch of an epoch. Three modes, as the user chooses:
//   random         a fresh permutation per epoch (RandomSampler), cut into batches;
//   group_by_length HF's LengthGroupedSampler: the permutation cut into megabatches of
//                  50 batches, each sorted by length (longest first), the batch holding the
//                  longest example moved to the front;
//   token budget   (max_tokens_per_batch > 0) fairseq/Marian style: examples shuffled, then
//                  sorted by length (stably, so equal lengths stay shuffled), cut into
//                  batches whose padded size (examples x longest) stays within the budget;
//                  the batches' order shuffled too, both anew each epoch.
// Permutations are a pure function of (seed, epoch) through the counter-based RNG, so any
// process, and a resumed run, derives the same order.
#pragma once

#include <cstdint>
#include <vector>

namespace precis::train {

using Batch = std::vector<int64_t>;  // example indices

// A uniform random permutation of [0, n) for (seed, epoch).
std::vector<int64_t> epoch_permutation(int64_t n, uint64_t seed, int64_t epoch);

struct SamplerOptions {
  int64_t batch_size = 8;
  bool group_by_length = false;
  int64_t max_tokens_per_batch = 0;
  bool drop_last = false;
  uint64_t seed = 42;
};

// The examples of an epoch in batch order for the fixed-size modes (random, group_by_length).
std::vector<int64_t> example_order(const std::vector<int64_t>& lengths, const SamplerOptions& options,
                                   int64_t epoch);

// lengths[i]: the example's length in tokens (for the token budget: max(source, target)).
std::vector<Batch> epoch_batches(const std::vector<int64_t>& lengths, const SamplerOptions& options,
                                 int64_t epoch);

// One step's micro-batch over `world` data-parallel ranks: shards[r] is what rank r computes.
//   random / group_by_length: the epoch's example order (the same whatever the world size)
//     cut into global batches of batch_size x world, each split into contiguous shards, rank
//     r taking rows r*batch_size.. (a short last batch as evenly as possible). This is
//     accelerate's BatchSamplerShard (what HF 4.44's Trainer uses under DDP: the seeded
//     sampler is shared and rank r takes the r-th of each `world` consecutive per-device
//     batches), so a global batch holds exactly the examples of one batch of
//     batch_size x world on one process. Unlike accelerate (even_batches), the last global
//     batch is not topped up with examples from the start of the epoch.
//     The shards are rows of one batch: padded together (shared_padding).
//   token budget: the epoch's token-budget batches, rank r taking batch k*world + r of global
//     step k (ranks past the end of the epoch get an empty shard); each padded on its own.
struct GlobalBatch {
  std::vector<Batch> shards;  // one per rank
  bool shared_padding = true;
  int64_t examples() const;
  int64_t first_row(int rank) const;  // rows of the global batch before rank's shard
};
std::vector<GlobalBatch> epoch_global_batches(const std::vector<int64_t>& lengths, const SamplerOptions& options,
                                              int64_t epoch, int world);

}  // namespace precis::train
