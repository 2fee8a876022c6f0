// The CUDA twin's kernels of LayerNorm (kernels/layernorm.h). A row is a block of kRowThreads
// threads: its sums in double through block_sum (block_sum.cuh), each element's output and
// gradient layernorm_math.h's, as the CPU loop computes them. The parameter gradients are
// column sums in double over chunks of rows (column_sums.cuh), the CPU's terms and types grouped
// otherwise; the row statistics and dx differ from the CPU's only by the order of the row sums'
// additions. T is the element type of x, y, dy and dx (element.cuh): fp32, or bf16/fp16
// loaded to float and rounded once from the fp32 result; weight, bias, the statistics and the
// parameter gradients are fp32 for every T.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/convert_math.h"
#include "precis/kernels/cuda/block_sum.cuh"
#include "precis/kernels/cuda/column_sums.cuh"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/grid_stride.cuh"
#include "precis/kernels/layernorm_math.h"

namespace precis::cuda {

// Block r normalises row r of x (rows, cols) into y; mean[r] and rstd[r] for the backward.
// y may alias x: every element is read before the row's last sum and written after it.
template <class T>
PRECIS_KERNEL void layernorm_forward_kernel(const T* x, const float* weight, const float* bias,
                                            T* y, float* mean, float* rstd, int64_t cols, float eps,
                                            uint16_t* rounded, bool bf16) {
  PRECIS_SHARED(double[kRowThreads], lanes);
  const int64_t r = blockIdx.x;
  const T* xr = x + r * cols;
  T* yr = y + r * cols;
  // Two passes, as the CPU: the mean, then the centred variance (no cancellation).
  double sum = 0.0;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) sum += load(xr[c]);
  const float m = float(block_sum(sum, lanes) / double(cols));
  double var = 0.0;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
    const double d = double(load(xr[c])) - m;
    var += d * d;
  }
  const float s = layernorm_math::rstd(block_sum(var, lanes), double(cols), eps);
  uint16_t* rr = rounded ? rounded + r * cols : nullptr;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
    store(yr[c], layernorm_math::output(load(xr[c]), m, s, weight[c], bias[c]));
    if (rr) rr[c] = convert_math::to_16(load(yr[c]), bf16);
  }
  if (threadIdx.x == 0) {
    mean[r] = m;
    rstd[r] = s;
  }
}

// The parameter gradients' partials (column_sums.cuh): over the chunk's rows in order, in
// double, Σ dy·x̂ into dweight_partials[chunk, c] and Σ dy into dbias_partials[chunk, c]. Runs
// before the dx kernel, which may overwrite dy.
template <class T>
PRECIS_KERNEL void layernorm_parameter_partials_kernel(const T* dy, const T* x, const float* mean,
                                                       const float* rstd, double* dweight_partials,
                                                       double* dbias_partials, int64_t rows, int64_t cols) {
  const ColumnChunk at = column_chunk(rows);
  if (at.column >= cols) return;
  double dw = 0.0, db = 0.0;
  for (int64_t r = at.first; r < at.last; ++r) {
    const float g = load(dy[r * cols + at.column]), m = mean[r], s = rstd[r];
    dw += g * ((load(x[r * cols + at.column]) - m) * s);
    db += g;
  }
  dweight_partials[int64_t(blockIdx.y) * cols + at.column] = dw;
  dbias_partials[int64_t(blockIdx.y) * cols + at.column] = db;
}

// Block r writes row r of dx; dx may alias dy (each element is read before the row's sums
// and written after them, by the same thread).
template <class T>
PRECIS_KERNEL void layernorm_input_gradient_kernel(const T* dy, const T* x, const float* weight,
                                                   const float* mean, const float* rstd, T* dx,
                                                   int64_t cols, uint16_t* rounded, bool bf16) {
  PRECIS_SHARED(double[kRowThreads], lanes);
  const int64_t r = blockIdx.x;
  const T* dyr = dy + r * cols;
  const T* xr = x + r * cols;
  T* dxr = dx + r * cols;
  const float m = mean[r], s = rstd[r];
  // With g = dy·w: mean_c(g) and mean_c(g·x̂), the two terms the normalisation feeds back.
  double g_sum = 0.0, gx_sum = 0.0;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
    const float g = load(dyr[c]) * weight[c];
    g_sum += g;
    gx_sum += double(g) * ((load(xr[c]) - m) * s);
  }
  const float g_mean = float(block_sum(g_sum, lanes) / double(cols));
  const float gx_mean = float(block_sum(gx_sum, lanes) / double(cols));
  uint16_t* rr = rounded ? rounded + r * cols : nullptr;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
    const float xhat = (load(xr[c]) - m) * s;
    store(dxr[c],
          layernorm_math::input_gradient(load(dyr[c]), weight[c], xhat, s, g_mean, gx_mean));
    if (rr) rr[c] = convert_math::to_16(load(dxr[c]), bf16);
  }
}

}  // namespace precis::cuda
