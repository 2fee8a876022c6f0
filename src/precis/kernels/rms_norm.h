// RMSNorm over the last dimension, as T5LayerNorm.forward (transformers 4.44
// models/t5/modeling_t5.py): y = w ⊙ x / sqrt(mean(x²) + eps), no mean subtraction and no
// bias. The mean of squares is accumulated in double (torch accumulates in float32; both round
// to the same float at these widths to ~1e-7 relative).
// The forward keeps 1/rms per row for the backward.
// x, y, dy, dx F32, or on CUDA one 16-bit type (BF16, F16); weight, rstd and dweight F32.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// x, y (..., C); weight (C); rstd (rows) = numel / C. `rounded`, when defined (BF16 or F16, y
// F32): y's values rounded too, in the same pass (rounded_copy.h).
void rms_norm_forward(const Tensor& x, const Tensor& weight, float eps, const Tensor& y,
                      const Tensor& rstd, const Tensor& rounded = Tensor{});

// With x̂ = x · rstd and y = x̂ ⊙ w, given dy (..., C):
//   dx      = rstd · (g - x̂ · mean_c(g · x̂)),  g = dy ⊙ w   (=)
//   dweight += Σ_rows dy ⊙ x̂                                (+=)
// rstd is the forward's. dx may alias dy. Row sums run in a fixed order.
void rms_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& rstd,
                       const Tensor& dx, const Tensor& dweight);

}  // namespace precis
