// The squared L2 norm of a gradient buffer, for torch.nn.utils.clip_grad_norm_ (called by
// transformers 4.44 trainer.py, Trainer._inner_training_loop):
// total = sqrt(Σ over parameters of sum_of_squares(grad)).
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// Σ x², accumulated in double. Elements are summed in fixed blocks whose partial sums are
// added in block order, so the value depends on the data only, never on the thread count.
double sum_of_squares(const Tensor& x);

// The same value, written to total (1) F64 on x's device and not read back: a training step
// forms its clipping scale from it where it is (GradientRead, kernels/optimizer.h).
void sum_of_squares_into(const Tensor& x, const Tensor& total);

}  // namespace precis
