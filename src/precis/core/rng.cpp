#include "precis/core/rng.h"

namespace precis {

namespace {

// Round multipliers and Weyl key increments from the Philox paper (section 5).
constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

// One round: two 32x32 -> 64 multiplications; the high halves are mixed with the other
// two words and the key, the low halves move across.
inline Philox4x32 philox_round(const Philox4x32& c, uint32_t k0, uint32_t k1) {
  uint64_t p0 = uint64_t(kMul0) * c[0];
  uint64_t p1 = uint64_t(kMul1) * c[2];
  return {uint32_t(p1 >> 32) ^ c[1] ^ k0, uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k1,
          uint32_t(p0)};
}

inline uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline Philox4x32 block_bits(uint64_t seed, uint64_t stream, uint64_t block) {
  return philox4x32_10({uint32_t(block), uint32_t(block >> 32), uint32_t(stream),
                        uint32_t(stream >> 32)},
                       {uint32_t(seed), uint32_t(seed >> 32)});
}

}  // namespace

Philox4x32 philox4x32_10(Philox4x32 counter, std::array<uint32_t, 2> key) {
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    counter = philox_round(counter, k0, k1);
  }
  return counter;
}

uint32_t random_bits(uint64_t seed, uint64_t stream, uint64_t index) {
  return block_bits(seed, stream, index / 4)[index % 4];
}

void random_bits(uint64_t seed, uint64_t stream, uint64_t first, int64_t n, uint32_t* out) {
  uint64_t i = first, end = first + uint64_t(n);
  while (i < end) {
    Philox4x32 r = block_bits(seed, stream, i / 4);
    for (uint64_t w = i % 4; w < 4 && i < end; ++w, ++i) *out++ = r[w];
  }
}

uint64_t dropout_stream(uint64_t step, uint32_t micro_batch, uint32_t layer, uint32_t site) {
  uint64_t h = splitmix64(step);
  h = splitmix64(h ^ ((uint64_t(micro_batch) << 32) | layer));
  return splitmix64(h ^ site);
}

}  // namespace precis
