// The random draws of Hugging Face's weight initialisation, from our counter-based RNG:
// value i of a tensor is a function of (seed, stream, i) alone, so an initialisation does not
// depend on threads or on the order tensors are visited in.
#pragma once

#include <cstdint>

#include "precis/core/tensor.h"

namespace precis {

// Elements [first, numel) of t ~ N(0, std^2), draw i from (seed, stream, i).
void fill_normal(const Tensor& t, double std, uint64_t seed, uint64_t stream, int64_t first = 0);
void fill_constant(const Tensor& t, float value);

}  // namespace precis
