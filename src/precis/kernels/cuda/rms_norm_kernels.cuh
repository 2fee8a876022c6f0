// The CUDA twin's kernels of RMSNorm (kernels/rms_norm.h), T5's LayerNorm. A row is a block of
// kRowThreads threads: its sums in double through block_sum (block_sum.cuh), each element's
// output and gradient rms_norm_math.h's, as the CPU loop computes them. The weight gradient is
// a column sum in double over chunks of rows (column_sums.cuh), the CPU's terms and types
// grouped otherwise; rstd and dx differ from the CPU's only by the order of the row sums'
// additions.
// T is the element type of x, y, dy and dx (element.cuh): fp32, or bf16/fp16 loaded to float
// and rounded once from the fp32 result; the weight, rstd and dweight are fp32 for every T.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/convert_math.h"
#include "precis/kernels/cuda/block_sum.cuh"
#include "precis/kernels/cuda/column_sums.cuh"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/grid_stride.cuh"
#include "precis/kernels/rms_norm_math.h"

namespace precis::cuda {

// Block r normalises row r of x (rows, cols) into y and keeps rstd[r] for the backward.
// y may alias x: every element is read before the row's sum and written after it.
template <class T>
PRECIS_KERNEL void rms_norm_forward_kernel(const T* x, const float* weight, T* y, float* rstd,
                                           int64_t cols, float eps, uint16_t* rounded, bool bf16) {
  PRECIS_SHARED(double[kRowThreads], lanes);
  const int64_t r = blockIdx.x;
  const T* xr = x + r * cols;
  T* yr = y + r * cols;
  double sum_sq = 0.0;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
    const double v = load(xr[c]);
    sum_sq += v * v;
  }
  const float s = rms_norm_math::rstd(block_sum(sum_sq, lanes), double(cols), eps);
  uint16_t* rr = rounded ? rounded + r * cols : nullptr;  // y's 16-bit copy, convert's bits
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
    store(yr[c], rms_norm_math::output(load(xr[c]), s, weight[c]));
    if (rr) rr[c] = convert_math::to_16(load(yr[c]), bf16);
  }
  if (threadIdx.x == 0) rstd[r] = s;
}

// The weight gradient's partials (column_sums.cuh): over the chunk's rows in order, in double,
// Σ dy·x·rstd into partials[chunk, c]. Runs before the dx kernel, which may overwrite dy.
template <class T>
PRECIS_KERNEL void rms_norm_weight_partials_kernel(const T* dy, const T* x, const float* rstd,
                                                   double* partials, int64_t rows, int64_t cols) {
  const ColumnChunk at = column_chunk(rows);
  if (at.column >= cols) return;
  double dw = 0.0;
  for (int64_t r = at.first; r < at.last; ++r)
    dw += load(dy[r * cols + at.column]) * (load(x[r * cols + at.column]) * rstd[r]);
  partials[int64_t(blockIdx.y) * cols + at.column] = dw;
}

// Block r writes row r of dx; dx may alias dy (each element is read before the row's sum and
// written after it, by the same thread).
template <class T>
PRECIS_KERNEL void rms_norm_input_gradient_kernel(const T* dy, const T* x, const float* weight,
                                                  const float* rstd, T* dx, int64_t cols) {
  PRECIS_SHARED(double[kRowThreads], lanes);
  const int64_t r = blockIdx.x;
  const T* dyr = dy + r * cols;
  const T* xr = x + r * cols;
  T* dxr = dx + r * cols;
  const float s = rstd[r];
  // With g = dy·w, the only feedback is through the mean of squares: mean_c(g·x̂).
  double gx_sum = 0.0;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads)
    gx_sum += double(load(dyr[c]) * weight[c]) * (load(xr[c]) * s);
  const float gx_mean = float(block_sum(gx_sum, lanes) / double(cols));
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads)
    store(dxr[c], rms_norm_math::input_gradient(load(dyr[c]), weight[c], load(xr[c]), s, gx_mean));
}

}  // namespace precis::cuda
