// RMSNorm's per-row and per-element math (T5LayerNorm), shared by the CPU loop
// (cpu/rms_norm_cpu.cpp) and the CUDA kernel; the caller reduces a row's sums in double.
#pragma once

#include <cmath>

#include "precis/core/host_device.h"

namespace precis::rms_norm_math {

// torch: the variance in float32, + eps, then rsqrt in float32.
PRECIS_HOST_DEVICE inline float rstd(double square_sum, double cols, float eps) {
  float variance = float(square_sum / cols);
  return 1.0f / std::sqrt(variance + eps);
}

// y = w ⊙ (x · rstd)
PRECIS_HOST_DEVICE inline float output(float x, float rstd, float w) { return w * (x * rstd); }

// dx = rstd · (g - x̂ · mean(g·x̂)), g = dy·w: the only feedback is through the mean of squares.
PRECIS_HOST_DEVICE inline float input_gradient(float dy, float w, float x, float rstd,
                                               float gx_mean) {
  return rstd * (dy * w - (x * rstd) * gx_mean);
}

}  // namespace precis::rms_norm_math
