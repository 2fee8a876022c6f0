// The random draw of multinomial sampling, shared by the backends: a uniform double in
// [0, 1) from (seed, stream, counter) by splitmix64 of a mixed key, so any draw can be
// recomputed without replaying the ones before it, on any device and thread count. It cannot
// reproduce torch.multinomial's stream: sampled ids are deterministic per seed but differ
// from transformers'.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"

namespace precis::decoding_math {

PRECIS_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

PRECIS_HOST_DEVICE inline double uniform(uint64_t seed, uint64_t stream, uint64_t counter) {
  uint64_t key = splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ counter);
  return double(key >> 11) * 0x1.0p-53;  // 53 random bits
}

}  // namespace precis::decoding_math
