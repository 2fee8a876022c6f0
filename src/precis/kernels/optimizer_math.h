// One element of torch.optim.AdamW's step (foreach=False, the single-tensor path), shared by
// the CPU loop (cpu/optimizer_cpu.cpp) and the CUDA kernel.
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"

namespace precis {

// Clipping formed where the gradient's Σ g² was left (GradientRead::norm_squared, on the
// parameters' device), so no host read comes between the norm and the update.
struct ClipFromNormSquared {
  const double* norm_squared = nullptr;  // null: AdamWScalars::grad_scale as it is
  double max_norm = 0.0;
  bool skip_if_not_finite = false;  // an inf or NaN norm: no update (fp16's GradScaler)
};

// The step's scalars, each formed from Python floats (double) and rounded to float once
// where it meets a float tensor, as torch does (kernels/optimizer.cpp forms them).
struct AdamWScalars {
  float decay_factor;  // 1 - lr·weight_decay
  float beta1, one_minus_beta1, beta2, one_minus_beta2;
  float neg_step_size;          // -lr / (1 - beta1^t)
  float bias_correction2_sqrt;  // sqrt(1 - beta2^t)
  float eps;
  // torch.nn.utils.clip_grad_norm_'s in-place g *= clip_coef, done as AdamW reads g (the same
  // float product; 1 when nothing is clipped, which changes no bit).
  float grad_scale = 1.0f;
  // On the CUDA kernel only (kernels/optimizer.cpp resolves these on a CPU): clipping formed
  // where the norm lies, and, where copy16 is not null, the updated parameter rounded to bf16
  // (copy_bf16) or fp16 too: mixed precision's compute copy refreshed in the same pass.
  ClipFromNormSquared clip = {};
  uint16_t* copy16 = nullptr;
  bool copy_bf16 = true;
};

namespace optimizer_math {

// torch.nn.utils.clip_grad_norm_'s coefficient: max_norm / (norm + 1e-6) in double, rounded
// to the float that multiplies the gradient where it is under 1 (max_norm > 0); else 1. A NaN
// norm gives a NaN coefficient, which is not under 1: nothing is scaled.
PRECIS_HOST_DEVICE inline float clip_coefficient(double norm, double max_norm) {
  if (max_norm <= 0) return 1.0f;
  const double coef = max_norm / (norm + 1e-6);
  return coef < 1.0 ? float(coef) : 1.0f;
}

// The operations and their order are torch's (param.mul_, exp_avg.mul_().add_(),
// exp_avg_sq.mul_().addcmul_(), sqrt / bc2_sqrt + eps, param.addcdiv_()). decay_factor is
// s.decay_factor for a parameter with weight decay and 1 for one without (1 - lr·0, exact).
PRECIS_HOST_DEVICE inline void adamw_step(float& param, float grad, float& exp_avg,
                                          float& exp_avg_sq, const AdamWScalars& s,
                                          float decay_factor) {
  grad = grad * s.grad_scale;                                          // clipping
  float p = param * decay_factor;                                      // decoupled weight decay
  float m = exp_avg * s.beta1 + s.one_minus_beta1 * grad;              // first moment
  float v = exp_avg_sq * s.beta2 + s.one_minus_beta2 * (grad * grad);  // second moment
  float denom = std::sqrt(v) / s.bias_correction2_sqrt + s.eps;
  param = p + s.neg_step_size * (m / denom);
  exp_avg = m;
  exp_avg_sq = v;
}
PRECIS_HOST_DEVICE inline void adamw_step(float& param, float grad, float& exp_avg,
                                          float& exp_avg_sq, const AdamWScalars& s) {
  adamw_step(param, grad, exp_avg, exp_avg_sq, s, s.decay_factor);
}

// Whether element i of a flat buffer takes weight decay: bit i % 32 of word i / 32.
PRECIS_HOST_DEVICE inline bool decays(const uint32_t* decay_mask, int64_t i) {
  return (decay_mask[i >> 5] >> (i & 31)) & 1u;
}

}  // namespace optimizer_math
}  // namespace precis
