// Moving whole tensors: copies and zero fills (memcpy/memset on the CPU).
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// dst = src (same number of elements and dtype).
void copy(const Tensor& src, const Tensor& dst);
// x = 0.
void zero(const Tensor& x);

}  // namespace precis
