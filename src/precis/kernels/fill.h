// Filling tensors: zeros, a constant, and the normal draws of Hugging Face's weight
// initialisation from our counter-based RNG (core/rng.h): value i of a tensor is a function of
// (seed, stream, i) alone, so an initialisation does not depend on the device, the threads or
// the order tensors are visited in.
#pragma once

#include <cstdint>

#include "precis/core/tensor.h"

namespace precis {

// x = 0 (any dtype).
void zero(const Tensor& x);

// x = value (F32).
void fill(const Tensor& x, float value);

// Elements [first, numel) of x (F32) ~ N(0, std^2): element i is std times the Box-Muller
// normal of the draws 2i and 2i + 1 of (seed, stream) (each product in double, rounded to
// float).
void fill_normal(const Tensor& x, double std, uint64_t seed, uint64_t stream, int64_t first = 0);

}  // namespace precis
