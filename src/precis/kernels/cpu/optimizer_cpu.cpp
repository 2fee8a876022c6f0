#include <algorithm>
#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/optimizer_math.h"

namespace precis::cpu {

namespace {

// One chunk of the update. sqrt never sees a negative v; compiled without errno handling the
// loop vectorises (sqrt stays the correctly rounded IEEE square root, so no bit changes).
[[gnu::optimize("-fno-math-errno")]] void adamw_chunk(float* params, const float* grads,
                                                      float* exp_avg, float* exp_avg_sq, int64_t n,
                                                      const AdamWScalars& s) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i)
    optimizer_math::adamw_step(params[i], grads[i], exp_avg[i], exp_avg_sq[i], s);
}

// The same with the decay chosen per element by the mask; `first` is a multiple of 32, so the
// chunk's bits start at a word boundary. The mask comes in long runs (whole tensors decay or
// not), so a run of equal all-ones or all-zeros words is one vectorised loop with one decay
// factor, and only a word that mixes both goes element by element. The arithmetic per element
// is the same either way.
[[gnu::optimize("-fno-math-errno")]] void adamw_masked_chunk(float* params, const float* grads,
                                                             float* exp_avg, float* exp_avg_sq,
                                                             const uint32_t* decay_mask, int64_t n,
                                                             const AdamWScalars& s) {
  int64_t i = 0;
  while (i < n) {
    const uint32_t word = decay_mask[i >> 5];
    if (word == 0u || word == ~0u) {
      int64_t end = i + 32;
      while (end < n && decay_mask[end >> 5] == word) end += 32;
      end = std::min(end, n);
      const float decay_factor = word ? s.decay_factor : 1.0f;
#pragma omp simd
      for (int64_t k = i; k < end; ++k)
        optimizer_math::adamw_step(params[k], grads[k], exp_avg[k], exp_avg_sq[k], s, decay_factor);
      i = end;
      continue;
    }
    const int64_t end = std::min(i + 32, n);
    for (int64_t k = i; k < end; ++k) {
      const float decay_factor = optimizer_math::decays(decay_mask, k) ? s.decay_factor : 1.0f;
      optimizer_math::adamw_step(params[k], grads[k], exp_avg[k], exp_avg_sq[k], s, decay_factor);
    }
    i = end;
  }
}

constexpr int64_t kOptimizerChunk = 1 << 14;  // a multiple of 32: chunks start at mask words

}  // namespace

void adamw_update(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, int64_t n,
                  const AdamWScalars& s) {
  // Elementwise: how the range is split cannot change a bit.
  const int64_t chunks = (n + kOptimizerChunk - 1) / kOptimizerChunk;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * kOptimizerChunk, count = std::min(kOptimizerChunk, n - begin);
    adamw_chunk(params + begin, grads + begin, exp_avg + begin, exp_avg_sq + begin, count, s);
  }
}

void adamw_update_masked(float* params, float* grads, float* exp_avg, float* exp_avg_sq,
                         const uint32_t* decay_mask, int64_t n, const AdamWScalars& s,
                         bool zero_grads) {
  const int64_t chunks = (n + kOptimizerChunk - 1) / kOptimizerChunk;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * kOptimizerChunk, count = std::min(kOptimizerChunk, n - begin);
    adamw_masked_chunk(params + begin, grads + begin, exp_avg + begin, exp_avg_sq + begin,
                       decay_mask + begin / 32, count, s);
    if (zero_grads) std::fill(grads + begin, grads + begin + count, 0.0f);
  }
}

}  // namespace precis::cpu
