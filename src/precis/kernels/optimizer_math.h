// One element of torch.optim.AdamW's step (foreach=False, the single-tensor path), shared by
// the CPU loop (cpu/optimizer_cpu.cpp) and the CUDA kernel.
#pragma once

#include <cmath>

#include "precis/core/host_device.h"

namespace precis {

// The step's scalars, each formed from Python floats (double) and rounded to float once
// where it meets a float tensor, as torch does (kernels/optimizer.cpp forms them).
struct AdamWScalars {
  float decay_factor;  // 1 - lr·weight_decay
  float beta1, one_minus_beta1, beta2, one_minus_beta2;
  float neg_step_size;          // -lr / (1 - beta1^t)
  float bias_correction2_sqrt;  // sqrt(1 - beta2^t)
  float eps;
};

namespace optimizer_math {

// The operations and their order are torch's (param.mul_, exp_avg.mul_().add_(),
// exp_avg_sq.mul_().addcmul_(), sqrt / bc2_sqrt + eps, param.addcdiv_()).
PRECIS_HOST_DEVICE inline void adamw_step(float& param, float grad, float& exp_avg,
                                          float& exp_avg_sq, const AdamWScalars& s) {
  float p = param * s.decay_factor;                                    // decoupled weight decay
  float m = exp_avg * s.beta1 + s.one_minus_beta1 * grad;              // first moment
  float v = exp_avg_sq * s.beta2 + s.one_minus_beta2 * (grad * grad);  // second moment
  float denom = std::sqrt(v) / s.bias_correction2_sqrt + s.eps;
  param = p + s.neg_step_size * (m / denom);
  exp_avg = m;
  exp_avg_sq = v;
}

}  // namespace optimizer_math
}  // namespace precis
