#include "precis/core/rng.h"

#include "precis/core/philox.h"

namespace precis {

namespace {

inline uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

// The rounds themselves are philox.h's, which the CUDA kernels run too.
Philox4x32 philox4x32_10(Philox4x32 counter, std::array<uint32_t, 2> key) {
  philox::Block b =
      philox::philox4x32_10({{counter[0], counter[1], counter[2], counter[3]}}, key[0], key[1]);
  return {b.w[0], b.w[1], b.w[2], b.w[3]};
}

uint32_t random_bits(uint64_t seed, uint64_t stream, uint64_t index) {
  return philox::random_bits(seed, stream, index);
}

void random_bits(uint64_t seed, uint64_t stream, uint64_t first, int64_t n, uint32_t* out) {
  uint64_t i = first;
  const uint64_t end = first + uint64_t(n);
  // The words before the first whole block, and after the last, one at a time.
  for (; i < end && i % 4 != 0; ++i) *out++ = philox::random_bits(seed, stream, i);
  // Whole blocks are independent of each other: a loop the compiler vectorises (dropout draws
  // a word per activation, and one block at a time was 3% of a small model's training step).
  const int64_t blocks = int64_t((end - i) / 4);
  const uint64_t first_block = i / 4;
#pragma omp simd
  for (int64_t b = 0; b < blocks; ++b) {
    const philox::Block r = philox::block_bits(seed, stream, first_block + uint64_t(b));
    for (int64_t w = 0; w < 4; ++w) out[4 * b + w] = r.w[w];
  }
  out += 4 * blocks;
  i += 4 * uint64_t(blocks);
  for (; i < end; ++i) *out++ = philox::random_bits(seed, stream, i);
}

uint64_t dropout_stream(uint64_t step, uint32_t micro_batch, uint32_t layer, uint32_t site) {
  uint64_t h = splitmix64(step);
  h = splitmix64(h ^ ((uint64_t(micro_batch) << 32) | layer));
  return splitmix64(h ^ site);
}

}  // namespace precis
