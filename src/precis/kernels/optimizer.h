// AdamW exactly as torch.optim.AdamW (torch 1.13, `_single_tensor_adamw`, the non-foreach
// path), over a flat range of n floats. Per element, with step t counted from 1:
//   param *= 1 - lr·wd                                  (decoupled decay first)
//   m      = β1·m + (1-β1)·g
//   v      = β2·v + (1-β2)·g²
//   denom  = sqrt(v) / sqrt(1 - β2^t) + eps
//   param -= (lr / (1 - β1^t)) · m / denom
// Scalars are formed in double and rounded to float once, as torch does with Python floats;
// the element math is float. Elementwise, so the result never depends on the thread count.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// params, grads, exp_avg, exp_avg_sq: the same number of F32 elements (any shapes). The
// scalars are doubles, as torch.optim.AdamW's are Python floats: 1 - beta2 is formed in double
// (0.001 for 0.999) and rounded to float once, where it meets a tensor.
void adamw_update(const Tensor& params, const Tensor& grads, const Tensor& exp_avg,
                  const Tensor& exp_avg_sq, double lr, double beta1, double beta2, double eps,
                  double weight_decay, int64_t step);

// The same over a flat buffer that holds many parameters (model/common/flat_parameters.h), in one
// launch: element i takes weight decay iff bit i % 32 of word i / 32 of decay_mask (I32,
// (n + 31) / 32 words, read as unsigned) is set; the others update as with weight_decay 0,
// bit for bit what adamw_update gives each parameter on its own.
//
// `read` fuses the gradient's other passes of a step into this one: clipping's scale, and the
// optimizer.zero_grad() that follows the step (the gradient is zero afterwards). The optimizer
// work is memory-bound, so one pass over the buffers instead of three is most of its time.
struct GradientRead {
  float clip_scale = 1.0f;  // the float clip_grad_norm_ multiplies the gradient by
  bool zero_after = false;
  // Or the scale formed where the gradient's Σ g² was left (sum_of_squares_into: one F64 on
  // the parameters' device), so nothing is read back between the norm and the update:
  // clip_grad_norm_'s coefficient for max_norm (optimizer_math::clip_coefficient). With
  // skip_if_not_finite an inf or NaN norm leaves the parameters and moments as they are
  // (fp16's GradScaler skips the step); zero_after still zeroes the gradient.
  Tensor norm_squared = {};
  double max_norm = 0.0;
  bool skip_if_not_finite = false;
  // Where defined (BF16 or F16, as many elements as the parameters): the updated parameters
  // rounded to it too, mixed precision's compute copy refreshed in the same pass (convert's
  // bits; a skipped step leaves it as the parameters, unchanged).
  Tensor compute_copy = {};
};
void adamw_update_masked(const Tensor& params, const Tensor& grads, const Tensor& exp_avg,
                         const Tensor& exp_avg_sq, const Tensor& decay_mask, double lr,
                         double beta1, double beta2, double eps, double weight_decay, int64_t step,
                         const GradientRead& read = {});

}  // namespace precis
