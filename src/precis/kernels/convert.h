// Changing a tensor's element type: fp32 to bf16 or fp16, rounding to nearest even as torch's
// .to() does (core/dtype.h's float_to_bf16 / float_to_f16, NaN kept a NaN), and back, exactly.
// What refreshes a 16-bit compute copy of the weights from the fp32 master
// (model/common/compute_copy.h).
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// dst = src in dst's dtype: the same element count; F32 -> BF16 | F16 or BF16 | F16 -> F32
// (or the same dtype: a copy).
void convert(const Tensor& src, const Tensor& dst);

}  // namespace precis
