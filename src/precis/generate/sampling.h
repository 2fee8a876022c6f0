// Multinomial sampling for do_sample with precis's own counter-based RNG: the same seed gives
// the same draws on any machine and thread count. It cannot reproduce torch.multinomial's
// stream, so sampled ids are deterministic per seed but differ from transformers'.
#pragma once

#include <cstdint>
#include <span>

namespace precis::generate {

// A uniform double in [0, 1) from (seed, stream, counter): splitmix64 of a mixed key, so any
// draw can be recomputed without replaying the ones before it.
double uniform(uint64_t seed, uint64_t stream, uint64_t counter);

// Draws an index with probability softmax(scores); -inf scores have probability zero and
// are never drawn. `u` in [0, 1). Returns -1 if every score is -inf.
int32_t sample_from_scores(std::span<const float> scores, double u);

}  // namespace precis::generate
