#include <algorithm>
#include <cmath>

#include "precis/kernels/cpu/column_blocks.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/layernorm_math.h"

namespace precis::cpu {

void layernorm_forward(const float* x, const float* weight, const float* bias, float* y,
                       float* mean, float* rstd, int64_t rows, int64_t cols, float eps) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    // Two passes in double: the mean, then the centred variance (no cancellation).
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum += xr[c];
    float m = float(sum / double(cols));
    double var = 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      double d = double(xr[c]) - m;
      var += d * d;
    }
    float s = layernorm_math::rstd(var, double(cols), eps);
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c)
      yr[c] = layernorm_math::output(xr[c], m, s, weight[c], bias[c]);
    mean[r] = m;
    rstd[r] = s;
  }
}

void layernorm_backward(const float* dy, const float* x, const float* weight, const float* mean,
                        const float* rstd, float* dx, float* dweight, float* dbias, int64_t rows,
                        int64_t cols) {
  // Parameter gradients first (dx may alias dy): columns split across threads, each sums
  // its columns over the rows in order, so the result is independent of the thread count.
  for_column_blocks(cols, [&](int64_t c0, int64_t width) {
    double dw[kColumnBlock] = {}, db[kColumnBlock] = {};
    for (int64_t r = 0; r < rows; ++r) {
      const float* dyr = dy + r * cols + c0;
      const float* xr = x + r * cols + c0;
      float m = mean[r], s = rstd[r];
#pragma omp simd
      for (int64_t c = 0; c < width; ++c) {
        dw[c] += dyr[c] * ((xr[c] - m) * s);  // dL/dweight += dy · x̂
        db[c] += dyr[c];                      // dL/dbias   += dy
      }
    }
    for (int64_t c = 0; c < width; ++c) {
      dweight[c0 + c] += float(dw[c]);
      dbias[c0 + c] += float(db[c]);
    }
  });
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* dyr = dy + r * cols;
    const float* xr = x + r * cols;
    float* dxr = dx + r * cols;
    float m = mean[r], s = rstd[r];
    // With g = dy·w: mean_c(g) and mean_c(g·x̂), the two terms the normalisation feeds back.
    double g_sum = 0.0, gx_sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      float g = dyr[c] * weight[c];
      g_sum += g;
      gx_sum += double(g) * ((xr[c] - m) * s);
    }
    float g_mean = float(g_sum / double(cols)), gx_mean = float(gx_sum / double(cols));
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) {
      float xhat = (xr[c] - m) * s;
      dxr[c] = layernorm_math::input_gradient(dyr[c], weight[c], xhat, s, g_mean, gx_mean);
    }
  }
}

}  // namespace precis::cpu
