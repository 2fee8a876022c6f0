// Linear layer as torch.nn.Linear stores it: weight (out, in), y = x · weightᵀ + bias.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// x (N, in) or (B, T, in); weight (out, in); bias (out) or undefined; y (..., out).
void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y);

}  // namespace precis
