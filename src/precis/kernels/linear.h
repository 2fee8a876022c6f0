// Linear layer as torch.nn.Linear stores it: weight (out, in), y = x · weightᵀ + bias.
// Dtypes: all F32; or, on CUDA under mixed precision, x, weight (the 16-bit compute copy), y,
// dy and dx one 16-bit type (BF16 or F16) with dweight and dbias F32 (fp32 accumulation), and
// the bias F32 or of that type (the compute copy's, as autocast casts it). Either way y is the
// fp32 product plus the bias, rounded once.
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

// linear_backward's dx alone into an fp32 dx: dx = dy · weight, or dx += it when `accumulate`,
// the product in fp32 and not rounded. dy and weight F32, or on CUDA 16-bit (a mixed-precision
// residual stream's gradient taking a linear layer's input share: the shares of one input then
// sum in fp32, in the GEMMs, with no pass of their own).
void linear_input_grad_to_fp32(const Tensor& dy, const Tensor& weight, const Tensor& dx,
                               bool accumulate);

}  // namespace precis
