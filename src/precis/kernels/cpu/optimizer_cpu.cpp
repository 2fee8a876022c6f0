#include <algorithm>
#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

namespace {

// One chunk of the update. sqrt never sees a negative v; compiled without errno handling the
// loop vectorises (sqrt stays the correctly rounded IEEE square root, so no bit changes).
[[gnu::optimize("-fno-math-errno")]] void adamw_chunk(
    float* params, const float* grads, float* exp_avg, float* exp_avg_sq, int64_t n,
    float decay_factor, float beta1, float one_minus_beta1, float beta2, float one_minus_beta2,
    float neg_step_size, float bias_correction2_sqrt, float eps) {
  // The operations and their order are torch's (param.mul_, exp_avg.mul_().add_(),
  // exp_avg_sq.mul_().addcmul_(), sqrt / bc2_sqrt + eps, param.addcdiv_()).
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    float g = grads[i];
    float p = params[i] * decay_factor;                           // decoupled weight decay
    float m = exp_avg[i] * beta1 + one_minus_beta1 * g;           // first moment
    float v = exp_avg_sq[i] * beta2 + one_minus_beta2 * (g * g);  // second moment
    float denom = std::sqrt(v) / bias_correction2_sqrt + eps;
    params[i] = p + neg_step_size * (m / denom);
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
  }
}

constexpr int64_t kOptimizerChunk = 1 << 14;

}  // namespace

void adamw_update(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, int64_t n,
                  float decay_factor, float beta1, float one_minus_beta1, float beta2,
                  float one_minus_beta2, float neg_step_size, float bias_correction2_sqrt,
                  float eps) {
  // Elementwise: how the range is split cannot change a bit.
  const int64_t chunks = (n + kOptimizerChunk - 1) / kOptimizerChunk;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * kOptimizerChunk, count = std::min(kOptimizerChunk, n - begin);
    adamw_chunk(params + begin, grads + begin, exp_avg + begin, exp_avg_sq + begin, count,
                decay_factor, beta1, one_minus_beta1, beta2, one_minus_beta2, neg_step_size,
                bias_correction2_sqrt, eps);
  }
}

}  // namespace precis::cpu
