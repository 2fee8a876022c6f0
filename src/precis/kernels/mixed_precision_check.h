// Mixed precision's rule for an op's tensors: the activations (and the weight's compute copy)
// share one dtype, fp32 or 16-bit; the parameters, their gradients and saved statistics are
// fp32 whatever it is (transformers' autocast keeps them so).
#pragma once

#include <initializer_list>

#include "precis/core/tensor.h"

namespace precis {

struct NamedOperand {
  const char* name;
  const Tensor& tensor;
};

// Throws unless every `same` tensor has the first one's dtype and every `f32` tensor is F32.
// Tensors without memory (optional outputs not asked for) do not count. The error names the
// rule and every tensor, as "<op>: x and y of one dtype, weight and rstd F32: x ..., y ...".
void check_mixed_precision(const char* op, std::initializer_list<NamedOperand> same,
                           std::initializer_list<NamedOperand> f32);

}  // namespace precis
