// The softmax of one row of attention scores and its pieces, shared by the CPU kernel
// (cpu/attention_cpu.cpp) and the CUDA one (cuda/attention_kernels.cuh). Masked keys get
// probability exactly 0 (what HF's additive finfo.min mask gives); a row with every key masked
// becomes uniform, as it does there.
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/exp_math.h"
#include "precis/kernels/row_math.h"

namespace precis::attention_math {

// The last key query i may see: i + past when causal (its own position in a cache of `past`
// earlier keys), else past every key.
PRECIS_HOST_DEVICE inline int64_t causal_limit(bool causal, int64_t past, int64_t i,
                                               int64_t k_len) {
  return causal ? i + past : k_len;
}

// Whether key j is visible to a query whose last visible key is causal_limit: not padding
// (key_mask[j] != 0, no mask: every key) and not after the limit.
PRECIS_HOST_DEVICE inline bool key_visible(const int32_t* key_mask, int64_t j,
                                           int64_t causal_limit) {
  return (!key_mask || key_mask[j]) && j <= causal_limit;
}

// One probability rebuilt from its raw score (scaled, biased) and its row's log-sum-exp:
// exp(s - lse) on a visible key, 0 on the others, 1/n over all n keys of a row with none visible.
PRECIS_HOST_DEVICE inline float probability_from_lse(float score, bool visible, bool row_sees_a_key,
                                                     int64_t n, float log_sum_exp) {
  return !row_sees_a_key ? 1.0f / float(n) : visible ? exp_math::exp(score - log_sum_exp) : 0.0f;
}

// Softmax of row[0..n) in place over the keys j with key_mask[j] != 0 (no mask: all) and
// j <= causal_limit: the max, exp_math's exp of each score minus it (a masked key's -inf gives
// exactly 0), their sum in double (row_sum), each exp times the sum's reciprocal. Returns the
// row's log Σ exp over its visible keys (max + log sum, in float), what a recomputing backward
// rebuilds the row from; 0 for a row with none visible, which becomes uniform.
PRECIS_HOST_DEVICE inline float masked_softmax_row_lse(float* row, int64_t n,
                                                       const int32_t* key_mask,
                                                       int64_t causal_limit) {
  const float minus_inf = -INFINITY;
  if (n == 0) return 0.0f;
  for (int64_t j = 0; j < n; ++j)
    row[j] = key_visible(key_mask, j, causal_limit) ? row[j] : minus_inf;
  const float max = row_math::row_max(row, n);
  if (max == minus_inf) {
    for (int64_t j = 0; j < n; ++j) row[j] = 1.0f / float(n);
    return 0.0f;
  }
  for (int64_t j = 0; j < n; ++j) row[j] = exp_math::exp(row[j] - max);
  const float sum = float(row_math::row_sum(row, n));
  const float inv = 1.0f / sum;
  for (int64_t j = 0; j < n; ++j) row[j] *= inv;
  return max + std::log(sum);
}

PRECIS_HOST_DEVICE inline void masked_softmax_row(float* row, int64_t n, const int32_t* key_mask,
                                                  int64_t causal_limit) {
  (void)masked_softmax_row_lse(row, n, key_mask, causal_limit);
}

// Row of probabilities rebuilt from raw scores (scaled, biased) and the row's log-sum-exp:
// exp(s - lse) on the visible keys, 0 on the others, uniform where none is visible.
PRECIS_HOST_DEVICE inline void softmax_row_from_lse(float* row, int64_t n, const int32_t* key_mask,
                                                    int64_t causal_limit, float log_sum_exp) {
  bool any = false;
  for (int64_t j = 0; j < n; ++j) any = any || key_visible(key_mask, j, causal_limit);
  for (int64_t j = 0; j < n; ++j)
    row[j] =
        probability_from_lse(row[j], key_visible(key_mask, j, causal_limit), any, n, log_sum_exp);
}

}  // namespace precis::attention_math
