// LayerNorm's per-row and per-element math (nn.LayerNorm), shared by the CPU loop
// (cpu/layernorm_cpu.cpp) and the CUDA kernel. A row's statistics are reduced in double by the
// caller, which sums in its own order (one thread per row on the CPU, a block on a GPU); what
// the sums become, and each element's output and gradient, are these functions.
#pragma once

#include <cmath>

#include "precis/core/host_device.h"

namespace precis::layernorm_math {

// 1/sqrt(var + eps) from Σ(x - mean)² over `cols` elements, in double, rounded once.
PRECIS_HOST_DEVICE inline float rstd(double centred_square_sum, double cols, float eps) {
  return float(1.0 / std::sqrt(centred_square_sum / cols + double(eps)));
}

// y = x̂·w + b with x̂ = (x - mean)·rstd.
PRECIS_HOST_DEVICE inline float output(float x, float mean, float rstd, float w, float b) {
  return (x - mean) * rstd * w + b;
}

// dx = rstd · (g - mean(g) - x̂·mean(g·x̂)), g = dy·w: the direct path through x̂, then the
// feedback through the mean and through the variance.
PRECIS_HOST_DEVICE inline float input_gradient(float dy, float w, float xhat, float rstd,
                                               float g_mean, float gx_mean) {
  return rstd * (dy * w - g_mean - xhat * gx_mean);
}

}  // namespace precis::layernorm_math
