// The CUDA twins' elementwise kernels (kernels/elementwise.h, kernels/fill.h): one thread per
// element in a grid-stride loop. Each element is the CPU's expression (the normal draws
// fill_math.h's), so the results are the CPU's bits (the draws' log and cos up to libm's ulps).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/fill_math.h"

namespace precis::cuda {

#define PRECIS_GRID_STRIDE(i, n)                                                          \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, stride_##i =          \
                                                                       int64_t(gridDim.x) * \
                                                                       blockDim.x;        \
       i < (n); i += stride_##i)

PRECIS_KERNEL void fill_kernel(float* x, int64_t n, float value) {
  PRECIS_GRID_STRIDE(i, n) x[i] = value;
}

// x[first..n) = draws first..n-1 of (seed, stream).
PRECIS_KERNEL void fill_normal_kernel(float* x, int64_t first, int64_t n, double std, uint64_t seed,
                                      uint64_t stream) {
  PRECIS_GRID_STRIDE(j, n - first) x[first + j] = fill_math::normal_draw(std, seed, stream, uint64_t(first + j));
}

PRECIS_KERNEL void add_kernel(const float* a, const float* b, float* out, int64_t n) {
  PRECIS_GRID_STRIDE(i, n) out[i] = a[i] + b[i];
}

PRECIS_KERNEL void add_into_kernel(const float* x, float* out, int64_t n) {
  PRECIS_GRID_STRIDE(i, n) out[i] += x[i];
}

PRECIS_KERNEL void scale_kernel(float* x, float s, int64_t n) {
  PRECIS_GRID_STRIDE(i, n) x[i] *= s;
}

PRECIS_KERNEL void multiply_kernel(const float* a, const float* b, float* out, int64_t n) {
  PRECIS_GRID_STRIDE(i, n) out[i] = a[i] * b[i];
}

}  // namespace precis::cuda
