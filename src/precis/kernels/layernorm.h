// LayerNorm over the last dimension (torch.nn.LayerNorm: biased variance, eps inside the
// square root). The forward keeps mean and 1/std per row for the backward.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// x, y (..., C); weight, bias (C); mean, rstd (rows) = numel / C.
void layernorm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps,
                       const Tensor& y, const Tensor& mean, const Tensor& rstd);

}  // namespace precis
