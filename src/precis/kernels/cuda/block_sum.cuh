// The row reduction of the normalisation twins (layernorm_kernels.cuh, rms_norm_kernels.cuh):
// one block per row, each thread a strided slice of the row summed in double, then a tree over
// shared memory in a fixed order, so a row's sum depends on its width alone, never on timing.
// It differs from the CPU's left-to-right sum only in the order of additions.
#pragma once

#include "precis/core/host_device.h"

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

}  // namespace precis::cuda
