// The CUDA twin's kernels of linear (kernels/linear.h) around its GEMMs (cuda/blas.h): the
// bias rows the forward GEMM accumulates onto, and the fp32 backward's bias gradient, summed in
// double over chunks of rows in order and then over the chunks (column_sums.cuh), added to db
// once (the 16-bit backward's comes from its weight GEMM's epilogue where cuBLASLt has one).
// Mixed precision's forward, where the GEMM's bias epilogue cannot take the bias, adds it to
// the GEMM's fp32 result and rounds y once (bias_round_kernel); its bias gradient reads 16-bit
// dy into the same double sum. T is the element type (element.cuh), B the bias's (fp32 or T).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/column_sums.cuh"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/grid_stride.cuh"

namespace precis::cuda {

// y (n, out) = the bias in every row.
PRECIS_KERNEL void bias_rows_kernel(const float* b, float* y, int64_t n, int64_t out) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n * out; i += stride)
    y[i] = b[i % out];
}

// y (n, out) = acc (n, out, fp32) + the bias in every row, rounded once to T.
template <class T, class B>
PRECIS_KERNEL void bias_round_kernel(const float* acc, const B* b, T* y, int64_t n, int64_t out) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n * out; i += stride)
    store(y[i], acc[i] + load(b[i % out]));
}

// The bias gradient's partials (column_sums.cuh): partials[chunk, c] = Σ over the chunk's rows
// of dy (n, out), in row order, in double. column_partials_sum_kernel then adds them onto db.
template <class T>
PRECIS_KERNEL void bias_grad_partials_kernel(const T* dy, double* partials, int64_t n, int64_t out) {
  const ColumnChunk at = column_chunk(n);
  if (at.column >= out) return;
  double acc = 0.0;
  for (int64_t r = at.first; r < at.last; ++r) acc += load(dy[r * out + at.column]);
  partials[int64_t(blockIdx.y) * out + at.column] = acc;
}

}  // namespace precis::cuda
