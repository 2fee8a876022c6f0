// The CUDA twins' elementwise kernels (kernels/elementwise.h, kernels/fill.h): one thread per
// element in a grid-stride loop. Each element is the CPU's expression (the normal draws
// fill_math.h's), so the results are the CPU's bits (the draws' log and cos up to libm's ulps).
// The arithmetic ones are templated on the element type T (element.cuh): fp32, or bf16/fp16
// computed in fp32 and rounded once.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/grid_stride.cuh"
#include "precis/kernels/fill_math.h"

namespace precis::cuda {

PRECIS_KERNEL void fill_kernel(float* x, int64_t n, float value) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride) x[i] = value;
}

// x[first..n) = draws first..n-1 of (seed, stream).
PRECIS_KERNEL void fill_normal_kernel(float* x, int64_t first, int64_t n, double std, uint64_t seed,
                                      uint64_t stream) {
  for (int64_t j = grid_thread(), stride = grid_threads(); j < n - first; j += stride)
    x[first + j] = fill_math::normal_draw(std, seed, stream, uint64_t(first + j));
}

template <class T>
PRECIS_KERNEL void add_kernel(const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    store(out[i], load(a[i]) + load(b[i]));
}

// An fp32 stream plus a branch of any element type, widened exactly: out = a + float(b).
template <class T>
PRECIS_KERNEL void add_to_fp32_kernel(const float* a, const T* b, float* out, int64_t n) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    out[i] = a[i] + load(b[i]);
}

template <class T>
PRECIS_KERNEL void add_into_kernel(const T* x, T* out, int64_t n) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    store(out[i], load(out[i]) + load(x[i]));
}

template <class T>
PRECIS_KERNEL void scale_kernel(T* x, float s, int64_t n) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    store(x[i], load(x[i]) * s);
}

template <class T>
PRECIS_KERNEL void multiply_kernel(const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    store(out[i], load(a[i]) * load(b[i]));
}

}  // namespace precis::cuda
