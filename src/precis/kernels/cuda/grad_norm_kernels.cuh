// The CUDA twin's kernel of sum_of_squares (kernels/grad_norm.h), the global gradient norm's
// one reduction: block b sums the squares of elements [b·kSumChunk, (b+1)·kSumChunk) in double,
// each thread a strided slice, then a tree over shared memory in a fixed order. The partial
// sums are added in block order after it (sum_in_block_order, one thread, where the partials
// are: nothing read back), so the value depends on n alone, never on timing; it differs from
// the CPU's blocked sum only in the order of additions (~1e-16 relative).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"

namespace precis::cuda {

constexpr int kSumThreads = 256;           // threads per block: a power of two
constexpr int64_t kSumChunk = int64_t(1) << 16;  // elements per block

inline int64_t sum_of_squares_blocks(int64_t n) { return (n + kSumChunk - 1) / kSumChunk; }

PRECIS_KERNEL void sum_of_squares_partials(const float* x, int64_t n, double* partials) {
  PRECIS_SHARED(double[kSumThreads], lanes);
  const int64_t begin = int64_t(blockIdx.x) * kSumChunk;
  const int64_t end = n < begin + kSumChunk ? n : begin + kSumChunk;
  double s = 0.0;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) s += double(x[i]) * double(x[i]);
  lanes[threadIdx.x] = s;
  __syncthreads();
  for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) lanes[threadIdx.x] += lanes[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = lanes[0];
}

// *total = the partials added first to last (a few thousand at most: bart-large's 406M
// gradients give 6,200), so the order is fixed.
PRECIS_KERNEL void sum_in_block_order(const double* partials, int64_t blocks, double* total) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  double s = 0.0;
  for (int64_t b = 0; b < blocks; ++b) s += partials[b];
  *total = s;
}

}  // namespace precis::cuda
