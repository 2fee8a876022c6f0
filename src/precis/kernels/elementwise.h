// Elementwise arithmetic on the residual stream.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// out = a + b (same shapes; out may alias a or b).
void add(const Tensor& a, const Tensor& b, const Tensor& out);

}  // namespace precis
