// Which examples form each batch of an epoch. Three modes, as the user chooses:
//   random         a fresh permutation per epoch (RandomSampler), cut into batches;
//   group_by_length HF's LengthGroupedSampler: the permutation cut into megabatches of
//                  50 batches, each sorted by length (longest first), the batch holding the
//                  longest example moved to the front;
//   token budget   (max_tokens_per_batch > 0) fairseq/Marian style: examples sorted by
//                  length, cut into batches whose padded size (examples x longest) stays
//                  within the budget, the batch order shuffled per epoch.
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

// lengths[i]: the example's length in tokens (for the token budget: max(source, target)).
std::vector<Batch> epoch_batches(const std::vector<int64_t>& lengths, const SamplerOptions& options,
                                 int64_t epoch);

}  // namespace precis::train
