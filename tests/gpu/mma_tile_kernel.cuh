// One warp's m16n8k16 product through kernels/cuda/mma.cuh, for the layout's tests: A (16x16)
// and B (16x8), row-major 16-bit values in memory, loaded into the documented registers; C
// (16x8, fp32) likewise; D stored back by the documented layout. The kernel emulator runs it in
// tests/unit/emulator/test_mma.cpp, a GPU in tests/gpu/kernels_on_device.cu: both against
// the product computed on the host.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/mma.cuh"

namespace precis::cuda {

template <class T>
PRECIS_KERNEL void mma_tile_kernel(const uint16_t* a_rows, const uint16_t* b_rows, const float* c_rows,
                                   float* d_rows) {
  const int lane = int(threadIdx.x);
  uint32_t a[4], b[2];
  float c[4], d[4];
  for (int r = 0; r < 4; ++r) {
    const int row = mma_a_row(lane, r), col = mma_a_col(lane, r);
    a[r] = pack_halves(a_rows[row * 16 + col], a_rows[row * 16 + col + 1]);
  }
  for (int r = 0; r < 2; ++r) {
    const int row = mma_b_row(lane, r), col = lane / 4;
    b[r] = pack_halves(b_rows[row * 8 + col], b_rows[(row + 1) * 8 + col]);
  }
  for (int e = 0; e < 4; ++e) c[e] = c_rows[mma_c_row(lane, e) * 8 + mma_c_col(lane, e)];
  mma_m16n8k16<T>(d, a, b, c);
  for (int e = 0; e < 4; ++e) d_rows[mma_c_row(lane, e) * 8 + mma_c_col(lane, e)] = d[e];
}

}  // namespace precis::cuda
