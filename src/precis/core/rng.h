// Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel Random
// Numbers: As Easy as 1, 2, 3", SC 2011). A draw is a pure function of (key, counter), so the
// random bits for element i of a tensor do not depend on which device, thread or rank makes
// them, nor on how many draws were made before. That is what makes dropout reproducible on
// any device and thread count, and a resumed run bit-identical to one that never stopped.
//
// Layout used by every precis consumer (CPU and CUDA must agree):
//   key     = (seed low 32 bits, seed high 32 bits)
//   counter = (block low 32, block high 32, stream low 32, stream high 32), block = index / 4
//   element `index` takes word index % 4 of philox4x32_10(counter, key).
#pragma once

#include <array>
#include <cstdint>

namespace precis {

using Philox4x32 = std::array<uint32_t, 4>;

// Ten rounds of Philox4x32 on `counter` with `key` (two 32-bit words).
Philox4x32 philox4x32_10(Philox4x32 counter, std::array<uint32_t, 2> key);

// 32 random bits for element `index` of the sequence (seed, stream).
uint32_t random_bits(uint64_t seed, uint64_t stream, uint64_t index);

// Random bits for elements [first, first + n) into `out` (one Philox call per 4 elements).
void random_bits(uint64_t seed, uint64_t stream, uint64_t first, int64_t n, uint32_t* out);

// The stream of one dropout site. The seed is the run's seed (TrainingArguments.seed); the
// stream separates every place a mask is drawn, so no two sites ever share random bits:
//   step        the optimizer step (global_step before the update, 0-based); a resumed run
//               passes the same number, so it redraws the same masks
//   micro_batch the micro-batch's global index within the step: rank * accumulation_steps
//               + local index, so masks follow the data and not the process that holds it
//   layer       the layer number, counting encoder layers then decoder layers (embedding
//               dropout uses its own layer number, e.g. one past the last layer)
//   site        which dropout of the layer (attention probabilities, attention output,
//               activation, FFN output, cross-attention ...), a small constant per site
// The four are mixed by a 64-bit finaliser (splitmix64), so nearby tuples give unrelated streams.
uint64_t dropout_stream(uint64_t step, uint32_t micro_batch, uint32_t layer, uint32_t site);

}  // namespace precis
