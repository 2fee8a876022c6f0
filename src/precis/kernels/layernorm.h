// LayerNorm over the last dimension (torch.nn.LayerNorm: biased variance, eps inside the
// square root). The forward keeps mean and 1/std per row for the backward.
// x, y, dy, dx F32, or on CUDA one 16-bit type (BF16, F16); weight, bias, statistics and their
// gradients F32.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// x, y (..., C); weight, bias (C); mean, rstd (rows) = numel / C.
// `rounded`, when defined (BF16 or F16, y F32): y's values rounded too, in the same pass (a
// mixed-precision stream's norm, rounded for the linear layers after it).
void layernorm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps,
                       const Tensor& y, const Tensor& mean, const Tensor& rstd,
                       const Tensor& rounded = Tensor{});

// With x̂ = (x - mean) * rstd and y = x̂ * weight + bias, given dy (..., C):
//   dx      = rstd * (g - mean_c(g) - x̂ * mean_c(g * x̂)),  g = dy * weight   (=)
//   dweight += Σ_rows dy * x̂                                              (+=)
//   dbias   += Σ_rows dy                                                  (+=)
// mean and rstd are the forward's. dx may alias dy. Row sums run in a fixed order. `rounded`,
// when defined (BF16 or F16, dx F32): dx's values rounded too, in the same pass.
void layernorm_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& mean,
                        const Tensor& rstd, const Tensor& dx, const Tensor& dweight,
                        const Tensor& dbias, const Tensor& rounded = Tensor{});

}  // namespace precis
