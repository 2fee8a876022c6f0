// Philox4x32-10 itself (Salmon, Moraes, Dror, Shaw, SC 2011) as inline functions both
// backends run: rng.h's API on the CPU and the CUDA kernels that draw dropout masks and
// initial weights call these, so a mask is the same bits on any device. The layout of key,
// counter and words is rng.h's.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"

namespace precis::philox {

struct Block {
  uint32_t w[4];
};

// Round multipliers and Weyl key increments from the Philox paper (section 5).
constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

// One round: two 32x32 -> 64 multiplications; the high halves are mixed with the other two
// words and the key, the low halves move across.
PRECIS_HOST_DEVICE inline Block round(const Block& c, uint32_t k0, uint32_t k1) {
  uint64_t p0 = uint64_t(kMul0) * c.w[0];
  uint64_t p1 = uint64_t(kMul1) * c.w[2];
  return {{uint32_t(p1 >> 32) ^ c.w[1] ^ k0, uint32_t(p1), uint32_t(p0 >> 32) ^ c.w[3] ^ k1,
           uint32_t(p0)}};
}

// Ten rounds on `counter` with the key (k0, k1), bumped by the Weyl increments between rounds.
PRECIS_HOST_DEVICE inline Block philox4x32_10(Block counter, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    counter = round(counter, k0, k1);
  }
  return counter;
}

// The four words of block `block` of the sequence (seed, stream).
PRECIS_HOST_DEVICE inline Block block_bits(uint64_t seed, uint64_t stream, uint64_t block) {
  return philox4x32_10(
      {{uint32_t(block), uint32_t(block >> 32), uint32_t(stream), uint32_t(stream >> 32)}},
      uint32_t(seed), uint32_t(seed >> 32));
}

// 32 random bits for element `index` of (seed, stream): word index % 4 of block index / 4.
PRECIS_HOST_DEVICE inline uint32_t random_bits(uint64_t seed, uint64_t stream, uint64_t index) {
  return block_bits(seed, stream, index / 4).w[index % 4];
}

}  // namespace precis::philox
