#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

void adamw_update(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, int64_t n,
                  float decay_factor, float beta1, float one_minus_beta1, float beta2,
                  float one_minus_beta2, float neg_step_size, float bias_correction2_sqrt,
                  float eps) {
  // The operations and their order are torch's (param.mul_, exp_avg.mul_().add_(),
  // exp_avg_sq.mul_().addcmul_(), sqrt / bc2_sqrt + eps, param.addcdiv_()).
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float g = grads[i];
    float p = params[i] * decay_factor;
    float m = exp_avg[i] * beta1 + one_minus_beta1 * g;
    float v = exp_avg_sq[i] * beta2 + one_minus_beta2 * (g * g);
    float denom = std::sqrt(v) / bias_correction2_sqrt + eps;
    params[i] = p + neg_step_size * (m / denom);
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
  }
}

}  // namespace precis::cpu
