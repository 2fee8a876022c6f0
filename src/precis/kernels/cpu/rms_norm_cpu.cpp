#include <algorithm>
#include <cmath>

#include "precis/kernels/cpu/column_blocks.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/rms_norm_math.h"

namespace precis::cpu {

void rms_norm_forward(const float* x, const float* weight, float* y, float* rstd, int64_t rows,
                      int64_t cols, float eps) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double sum_sq = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum_sq += double(xr[c]) * xr[c];
    float s = rms_norm_math::rstd(sum_sq, double(cols), eps);
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) yr[c] = rms_norm_math::output(xr[c], s, weight[c]);
    rstd[r] = s;
  }
}

void rms_norm_backward(const float* dy, const float* x, const float* weight, const float* rstd,
                       float* dx, float* dweight, int64_t rows, int64_t cols) {
  // The weight gradient first (dx may alias dy), columns across threads, rows in order.
  for_column_blocks(cols, [&](int64_t c0, int64_t width) {
    double dw[kColumnBlock] = {};
    for (int64_t r = 0; r < rows; ++r) {
      const float* dyr = dy + r * cols + c0;
      const float* xr = x + r * cols + c0;
      float s = rstd[r];
#pragma omp simd
      for (int64_t c = 0; c < width; ++c) dw[c] += dyr[c] * (xr[c] * s);  // dy · x̂
    }
    for (int64_t c = 0; c < width; ++c) dweight[c0 + c] += float(dw[c]);
  });
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* dyr = dy + r * cols;
    const float* xr = x + r * cols;
    float* dxr = dx + r * cols;
    float s = rstd[r];
    // With g = dy·w, the only feedback is through the mean of squares: mean_c(g·x̂).
    double gx_sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) gx_sum += double(dyr[c] * weight[c]) * (xr[c] * s);
    float gx_mean = float(gx_sum / double(cols));
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c)
      dxr[c] = rms_norm_math::input_gradient(dyr[c], weight[c], xr[c], s, gx_mean);
  }
}

}  // namespace precis::cpu
