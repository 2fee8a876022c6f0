// The CUDA twin's kernel of first_invalid_id (kernels/token_ids.h): each thread scans its
// grid-stride slice and keeps the first invalid position it meets (its later ones are larger),
// then the block takes the least of its threads' by a tree over shared memory. The launcher
// takes the least over the blocks: a minimum, so the answer is the CPU's whatever the grid.
// Each partial is n minus that position, so 0 says "none" (zeroed memory, the cost model's
// counting backend's answer to every read, means no invalid id).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/grid_stride.cuh"
#include "precis/kernels/token_ids_math.h"

namespace precis::cuda {

// Threads per block: a power of two. A scan needs no more; the emulator, whose threads are
// real ones, runs its many small calls (one per op that reads ids) the faster.
constexpr int kIdScanThreads = 64;

// partials[block] = n - the block's first invalid position, or 0 when it has none.
PRECIS_KERNEL void first_invalid_id_partials(const int32_t* ids, int64_t n, int64_t limit,
                                             bool has_allowed, int32_t allowed, int64_t* partials) {
  PRECIS_SHARED(int64_t[kIdScanThreads], firsts);
  int64_t first = n;
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    if (token_ids_math::is_invalid_id(ids[i], limit, has_allowed, allowed)) {
      first = i;
      break;
    }
  firsts[threadIdx.x] = first;
  __syncthreads();
  for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
    if (threadIdx.x < width && firsts[threadIdx.x + width] < firsts[threadIdx.x])
      firsts[threadIdx.x] = firsts[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = n - firsts[0];
}

}  // namespace precis::cuda
