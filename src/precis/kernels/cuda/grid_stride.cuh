// The grid-stride loop of the elementwise kernels, launched with grid_stride_blocks (launch.h):
// thread t of the grid visits t, t + G, t + 2G, ... below the count, G being the grid's thread
// count, so any grid covers any count and each element is one thread's:
//
//   for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride) ...
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"

namespace precis::cuda {

// This thread's index in the grid: where its loop starts.
PRECIS_DEVICE int64_t grid_thread() { return int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }

// The grid's thread count: the loop's step.
PRECIS_DEVICE int64_t grid_threads() { return int64_t(gridDim.x) * blockDim.x; }

}  // namespace precis::cuda
