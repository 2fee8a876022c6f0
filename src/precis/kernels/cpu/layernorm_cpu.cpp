#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"

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
    float s = float(1.0 / std::sqrt(var / double(cols) + double(eps)));
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) yr[c] = (xr[c] - m) * s * weight[c] + bias[c];
    mean[r] = m;
    rstd[r] = s;
  }
}

}  // namespace precis::cpu
