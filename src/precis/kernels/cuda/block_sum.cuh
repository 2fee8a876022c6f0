// The row reductions of the row-per-block twins (layernorm, rms_norm, cross_entropy): one block
// per row, each thread a strided slice of the row summed in double, then a tree over shared
// memory in a fixed order, so a row's sum depends on its width alone, never on timing. It
// differs from the CPU's left-to-right sum only in the order of additions; the max is exact.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/element.cuh"

namespace precis::cuda {

constexpr unsigned kRowThreads = 128;  // threads per row block: a power of two

// Σ of every thread's `value` over the block (blockDim.x = kRowThreads), returned to all of
// them. lanes: the block's __shared__ double[kRowThreads]; free again on return.
PRECIS_DEVICE double block_sum(double value, double* lanes) {
  lanes[threadIdx.x] = value;
  __syncthreads();
  for (unsigned width = kRowThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) lanes[threadIdx.x] += lanes[threadIdx.x + width];
    __syncthreads();
  }
  const double sum = lanes[0];
  __syncthreads();  // every thread has read lanes[0] before the next sum overwrites it
  return sum;
}

// Σ over the block of two values at once (a row's sums of exponentials and of logits, a loss
// total and its count), in the same fixed tree; blockDim.x a power of two. The sums come back
// in a and b to every thread; lanes_a and lanes_b (__shared__, blockDim.x each) are free again
// on return.
template <class A, class B>
PRECIS_DEVICE void block_sum_pair(A& a, B& b, A* lanes_a, B* lanes_b) {
  lanes_a[threadIdx.x] = a;
  lanes_b[threadIdx.x] = b;
  __syncthreads();
  for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      lanes_a[threadIdx.x] += lanes_a[threadIdx.x + width];
      lanes_b[threadIdx.x] += lanes_b[threadIdx.x + width];
    }
    __syncthreads();
  }
  a = lanes_a[0];
  b = lanes_b[0];
  __syncthreads();  // every thread has read them before the lanes are used again
}

// The max of row[0..n) loaded to float (T: element.cuh's fp32, bf16 or fp16), returned to every
// thread of the block (blockDim.x a power of two). It starts from row[0], as the CPU's loop
// does, so a NaN there is kept the same way. lanes: __shared__ float[blockDim.x]; free again on
// return.
template <class T>
PRECIS_DEVICE float block_row_max(const T* row, int64_t n, float* lanes) {
  float max = load(row[0]);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const float v = load(row[j]);
    max = v > max ? v : max;
  }
  lanes[threadIdx.x] = max;
  __syncthreads();
  for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
    if (threadIdx.x < width && lanes[threadIdx.x + width] > lanes[threadIdx.x])
      lanes[threadIdx.x] = lanes[threadIdx.x + width];
    __syncthreads();
  }
  max = lanes[0];
  __syncthreads();
  return max;
}

}  // namespace precis::cuda
