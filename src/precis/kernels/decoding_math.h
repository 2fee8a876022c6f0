// The per-element math of the decoding ops (decoding.h) that both backends run: the CPU's
// row functions (cpu/logits_rows.cpp) and the CUDA kernels (cuda/decoding_kernels.cuh) call
// these, so each element is the same expression in the same types.
//
// The random draw of the CUDA twin's multinomial sampling: a uniform double in [0, 1) from
// (seed, stream, counter) by splitmix64 of a mixed key, so any draw can be recomputed without
// replaying the ones before it, on any thread count. It does not reproduce torch's stream:
// CUDA-sampled ids are deterministic per seed but differ from transformers'. The CPU draws
// torch's CPU stream instead (core/torch_cpu_generator.h, cpu/logits_rows.h).
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/exp_math.h"

namespace precis::decoding_math {

PRECIS_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

PRECIS_HOST_DEVICE inline double uniform(uint64_t seed, uint64_t stream, uint64_t counter) {
  uint64_t key = splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ counter);
  return double(key >> 11) * 0x1.0p-53;  // 53 random bits
}

// RepetitionPenaltyLogitsProcessor on one score, in float as torch computes it.
PRECIS_HOST_DEVICE inline float repetition_penalized(float x, float penalty) {
  return x < 0 ? x * penalty : x / penalty;
}

// log_softmax of a row with max `max` (finite): the terms exp(x - max), exp_math's in float (as
// torch's log_softmax takes them in float), summed in double, then each score.
PRECIS_HOST_DEVICE inline double log_softmax_term(float x, float max) {
  return double(exp_math::exp(x - max));
}
PRECIS_HOST_DEVICE inline float log_softmax_log_sum(double sum) { return float(std::log(sum)); }
PRECIS_HOST_DEVICE inline float log_softmax_value(float x, float max, float log_sum) {
  return (x - max) - log_sum;
}

// TemperatureLogitsWarper on one score.
PRECIS_HOST_DEVICE inline float tempered(float x, float temperature) { return x / temperature; }

// exp(x - max) in double: the unnormalised probability of a score in top-p's softmax and in
// the draw (exactly 0 for -inf).
PRECIS_HOST_DEVICE inline double softmax_weight(float x, float max) {
  return std::exp(double(x) - double(max));
}

// TopPLogitsWarper: the cumulative probability at or under which a token is removed.
PRECIS_HOST_DEVICE inline float top_p_threshold(double top_p) { return float(1.0 - top_p); }
PRECIS_HOST_DEVICE inline bool top_p_removes(double cumulative, float threshold) {
  return float(cumulative) <= threshold;
}

// TopPLogitsWarper's removals on a row s (n > 0) given its stable ascending order: the
// softmax of the row (total summed in index order, cumulative in sorted order from the
// lowest, both in double, as one sequence of additions on every backend so the decisions are
// the same bits), removing while float(cumulative) <= 1 - top_p except the min_keep highest.
// A -inf score weighs exactly 0 and removing it changes nothing, so it is skipped.
PRECIS_HOST_DEVICE inline void remove_top_p(float* s, int64_t n, const int32_t* ascending,
                                            double top_p, int64_t min_keep) {
  const float max = s[ascending[n - 1]];
  if (max == -INFINITY) return;
  double total = 0;
  for (int64_t j = 0; j < n; ++j)
    if (s[j] != -INFINITY) total += softmax_weight(s[j], max);
  const float threshold = top_p_threshold(top_p);
  const int64_t keep = min_keep < 0 ? 0 : min_keep < n ? min_keep : n;
  double cumulative = 0;
  for (int64_t i = 0; i < n - keep; ++i) {
    const int32_t id = ascending[i];
    if (s[id] == -INFINITY) continue;
    // s[id] is read before it is removed, and each id comes once: removing in the walk is
    // removing after it.
    cumulative += softmax_weight(s[id], max) / total;
    if (top_p_removes(cumulative, threshold)) s[id] = -INFINITY;
  }
}

// The draw of multinomial sampling from scores s (n, max their maximum): the first index
// whose cumulative weight exp(s - max), in index order in double, passes u · total; -inf
// scores are never drawn; -1 when every score is -inf.
PRECIS_HOST_DEVICE inline int32_t draw(const float* s, int64_t n, float max, double u) {
  if (max == -INFINITY) return -1;
  double total = 0;
  for (int64_t j = 0; j < n; ++j)
    if (s[j] != -INFINITY) total += softmax_weight(s[j], max);
  const double target = u * total;
  double cumulative = 0;
  int32_t last = -1;
  for (int64_t j = 0; j < n; ++j) {
    if (s[j] == -INFINITY) continue;
    const double p = softmax_weight(s[j], max);
    if (p <= 0) continue;
    cumulative += p;
    last = int32_t(j);
    if (cumulative > target) return last;
  }
  return last;  // rounding left target at the very end
}

}  // namespace precis::decoding_math
