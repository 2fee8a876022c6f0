// One element of inverted dropout, shared by the CPU loop (cpu/dropout_cpu.cpp) and the CUDA
// kernel: kept iff its Philox bits (core/philox.h) are at least the threshold (dropout.h).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/core/philox.h"

namespace precis::dropout_math {

// philox::random_bits(seed, stream, index), the word of the block picked by comparisons: a GPU
// kernel then keeps the block in registers, where indexing it by index % 4 puts it in local
// memory.
PRECIS_HOST_DEVICE inline uint32_t element_bits(uint64_t seed, uint64_t stream, uint64_t index) {
  const philox::Block block = philox::block_bits(seed, stream, index / 4);
  const uint64_t word = index % 4;
  return word == 0 ? block.w[0] : word == 1 ? block.w[1] : word == 2 ? block.w[2] : block.w[3];
}

PRECIS_HOST_DEVICE inline float apply(float x, uint32_t bits, uint64_t threshold, float scale) {
  return bits >= threshold ? x * scale : 0.0f;
}

}  // namespace precis::dropout_math
