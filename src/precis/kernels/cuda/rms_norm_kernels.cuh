// The CUDA twin's kernels of RMSNorm (kernels/rms_norm.h), T5's LayerNorm. A row is a block of
// kRowThreads threads: its sums in double through block_sum (block_sum.cuh), each element's
// output and gradient rms_norm_math.h's, as the CPU loop computes them. The weight gradient is
// one thread per column summing the rows in order, the CPU's order and types, so it is the
// CPU's bits; rstd and dx differ from them only by the order of the row sums' additions.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/block_sum.cuh"
#include "precis/kernels/rms_norm_math.h"

namespace precis::cuda {

// Block r normalises row r of x (rows, cols) into y and keeps rstd[r] for the backward.
// y may alias x: every element is read before the row's sum and written after it.
PRECIS_KERNEL void rms_norm_forward_kernel(const float* x, const float* weight, float* y,
                                           float* rstd, int64_t cols, float eps) {
  __shared__ double lanes[kRowThreads];
  const int64_t r = blockIdx.x;
  const float* xr = x + r * cols;
  float* yr = y + r * cols;
  double sum_sq = 0.0;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) sum_sq += double(xr[c]) * xr[c];
  const float s = rms_norm_math::rstd(block_sum(sum_sq, lanes), double(cols), eps);
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads)
    yr[c] = rms_norm_math::output(xr[c], s, weight[c]);
  if (threadIdx.x == 0) rstd[r] = s;
}

// dweight[c] += Σ_r dy·x̂: a column per thread (grid-stride), rows in order in double. Runs
// before the dx kernel, which may overwrite dy.
PRECIS_KERNEL void rms_norm_weight_gradient_kernel(const float* dy, const float* x,
                                                   const float* rstd, float* dweight, int64_t rows,
                                                   int64_t cols) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < cols; c += stride) {
    double dw = 0.0;
    for (int64_t r = 0; r < rows; ++r) dw += dy[r * cols + c] * (x[r * cols + c] * rstd[r]);
    dweight[c] += float(dw);
  }
}

// Block r writes row r of dx; dx may alias dy (each element is read before the row's sum and
// written after it, by the same thread).
PRECIS_KERNEL void rms_norm_input_gradient_kernel(const float* dy, const float* x,
                                                  const float* weight, const float* rstd, float* dx,
                                                  int64_t cols) {
  __shared__ double lanes[kRowThreads];
  const int64_t r = blockIdx.x;
  const float* dyr = dy + r * cols;
  const float* xr = x + r * cols;
  float* dxr = dx + r * cols;
  const float s = rstd[r];
  // With g = dy·w, the only feedback is through the mean of squares: mean_c(g·x̂).
  double gx_sum = 0.0;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads)
    gx_sum += double(dyr[c] * weight[c]) * (xr[c] * s);
  const float gx_mean = float(block_sum(gx_sum, lanes) / double(cols));
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads)
    dxr[c] = rms_norm_math::input_gradient(dyr[c], weight[c], xr[c], s, gx_mean);
}

}  // namespace precis::cuda
