// The CUDA twin's kernel of inverted dropout (kernels/dropout.h). Element i of the range draws
// word (first + i) % 4 of Philox block (first + i) / 4 of (seed, stream), as core/rng.h's
// random_bits does, and keeps or drops through dropout_math.h, so the mask and the values are
// the CPU's bits. A thread takes a whole Philox block (up to four elements; the range's ends
// may cut the first and last), so each block is drawn once. T is the element type
// (element.cuh): fp32, or bf16/fp16 with the same mask, each kept value x·scale rounded once.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/core/philox.h"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/grid_stride.cuh"
#include "precis/kernels/dropout_math.h"

namespace precis::cuda {

constexpr uint64_t kPhiloxWords = 4;  // 32-bit words per Philox4x32 block

// The Philox blocks the range [first, first + n) touches: the grid-stride loop's length.
PRECIS_HOST_DEVICE inline uint64_t dropout_blocks(int64_t n, uint64_t first) {
  return (first + uint64_t(n) + kPhiloxWords - 1) / kPhiloxWords - first / kPhiloxWords;
}

// y[i] = dropout of x[i] for i in [0, n), drawing at flat index first + i. y may alias x:
// each element is read and written by one thread.
template <class T>
PRECIS_KERNEL void dropout_kernel(const T* x, T* y, int64_t n, uint64_t threshold, float scale,
                                  uint64_t seed, uint64_t stream, uint64_t first) {
  const uint64_t end = first + uint64_t(n);
  const uint64_t first_block = first / kPhiloxWords, blocks = dropout_blocks(n, first);
  for (uint64_t b = uint64_t(grid_thread()), stride = uint64_t(grid_threads()); b < blocks;
       b += stride) {
    const uint64_t block = first_block + b;
    const philox::Block bits = philox::block_bits(seed, stream, block);
    for (uint64_t w = 0; w < kPhiloxWords; ++w) {
      const uint64_t index = block * kPhiloxWords + w;
      if (index < first || index >= end) continue;
      const uint64_t i = index - first;
      store(y[i], dropout_math::apply(load(x[i]), bits.w[w], threshold, scale));
    }
  }
}

}  // namespace precis::cuda
