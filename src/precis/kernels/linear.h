// Linear layer as torch.nn.Linear stores it: weight (out, in), y = x · weightᵀ + bias.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// x (N, in) or (B, T, in); weight (out, in); bias (out) or undefined; y (..., out).
void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y);

// Given dy = dL/dy (..., out):
//   dx      =  dy · weight        (..., in); skipped when dx is undefined (ptr null)
//   dweight += dyᵀ · x            (out, in); skipped when undefined (a frozen weight)
//   dbias   += Σ_rows dy          (out);     skipped when undefined
// Sums over rows run in an order fixed by the shapes alone (not the thread count).
void linear_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& dx,
                     const Tensor& dweight, const Tensor& dbias);

}  // namespace precis
