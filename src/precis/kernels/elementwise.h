// Elementwise arithmetic on the residual stream.
// Every tensor of an op one dtype: F32, or on CUDA BF16 or F16 (computed in fp32, rounded once).
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// out = a + b (same shapes; out may alias a or b).
void add(const Tensor& a, const Tensor& b, const Tensor& out);

// out = a + b in fp32: a and out F32, b F32 or, on CUDA, BF16 / F16 widened exactly (torch's
// promotion of bf16 + fp32): a mixed-precision residual stream taking a 16-bit branch in one
// pass. out may alias a.
void add_to_fp32(const Tensor& a, const Tensor& b, const Tensor& out);

// out += x (same element count): the residual stream's gradient gathering its branches.
void add_into(const Tensor& x, const Tensor& out);

// x *= s.
void scale_in_place(const Tensor& x, float s);

// out = a ⊙ b (same element counts; out may alias a or b): gated feed-forwards.
void multiply(const Tensor& a, const Tensor& b, const Tensor& out);

}  // namespace precis
