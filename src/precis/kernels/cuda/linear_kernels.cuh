// The CUDA twin's kernels of linear (kernels/linear.h) around its GEMMs (cuda/blas.h): the
// bias rows the forward GEMM accumulates onto, and the bias gradient, summed as the CPU sums
// it (in double, rows in order 0..n-1, then added to db once), so db is the CPU's bits.
// Mixed precision's forward adds the fp32 bias to the GEMM's fp32 result and rounds y once
// (bias_round_kernel); its bias gradient reads 16-bit dy into the same double sum. T is the
// element type (element.cuh).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/grid_stride.cuh"

namespace precis::cuda {

// y (n, out) = the bias in every row.
PRECIS_KERNEL void bias_rows_kernel(const float* b, float* y, int64_t n, int64_t out) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n * out; i += stride)
    y[i] = b[i % out];
}

// y (n, out) = acc (n, out, fp32) + the bias in every row, rounded once to T.
template <class T>
PRECIS_KERNEL void bias_round_kernel(const float* acc, const float* b, T* y, int64_t n,
                                     int64_t out) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n * out; i += stride)
    store(y[i], acc[i] + b[i % out]);
}

// db (out) += Σ_rows dy (n, out): one thread per column, so neighbouring threads read
// neighbouring elements of each row.
template <class T>
PRECIS_KERNEL void bias_grad_kernel(const T* dy, float* db, int64_t n, int64_t out) {
  for (int64_t c = grid_thread(), stride = grid_threads(); c < out; c += stride) {
    double acc = 0.0;
    for (int64_t r = 0; r < n; ++r) acc += load(dy[r * out + c]);
    db[c] += float(acc);
  }
}

}  // namespace precis::cuda
