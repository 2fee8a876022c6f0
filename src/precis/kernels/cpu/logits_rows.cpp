#include "precis/kernels/cpu/logits_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_set>

#include "precis/core/torch_cpu_generator.h"
#include "precis/kernels/decoding_math.h"
#include "precis/kernels/row_math.h"

namespace precis::cpu {

namespace {
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
}

void apply_repetition_penalty(std::span<const int32_t> history, float penalty, std::span<float> s) {
  // torch gathers every position, transforms, and scatters back: a repeated id is penalised
  // once, from its original score.
  std::unordered_set<int32_t> seen;
  for (int32_t id : history) {
    if (id < 0 || size_t(id) >= s.size() || !seen.insert(id).second) continue;
    s[size_t(id)] = decoding_math::repetition_penalized(s[size_t(id)], penalty);
  }
}

void ban_repeated_ngrams(std::span<const int32_t> history, int64_t n, std::span<float> s) {
  const int64_t len = int64_t(history.size());
  if (n <= 0 || len + 1 < n) return;
  // The n-1 tokens the next token would complete an n-gram with.
  std::span<const int32_t> prefix = history.subspan(size_t(len - (n - 1)));
  for (int64_t start = 0; start + n <= len; ++start) {
    if (std::equal(prefix.begin(), prefix.end(), history.begin() + start)) {
      int32_t banned = history[size_t(start + n - 1)];
      if (banned >= 0 && size_t(banned) < s.size()) s[size_t(banned)] = kMinusInf;
    }
  }
}

void ban_bad_words(std::span<const int32_t> history, const std::vector<std::vector<int32_t>>& words,
                   std::span<float> s) {
  for (const auto& word : words) {
    if (word.empty() || word.size() > history.size()) continue;
    size_t prefix = word.size() - 1;
    if (std::equal(word.begin(), word.begin() + std::ptrdiff_t(prefix),
                   history.end() - std::ptrdiff_t(prefix)))
      s[size_t(word.back())] = kMinusInf;  // score + (-inf)
  }
}

void ban_eos_below(int64_t length, int64_t minimum, std::span<const int32_t> eos_ids,
                   std::span<float> s) {
  if (length >= minimum) return;
  for (int32_t id : eos_ids)
    if (id >= 0 && size_t(id) < s.size()) s[size_t(id)] = kMinusInf;
}

void force_tokens(std::span<const int32_t> ids, std::span<float> s) {
  std::fill(s.begin(), s.end(), kMinusInf);
  for (int32_t id : ids)
    if (id >= 0 && size_t(id) < s.size()) s[size_t(id)] = 0.0f;
}

void apply_temperature(float temperature, std::span<float> s) {
  for (float& x : s) x = decoding_math::tempered(x, temperature);
}

void keep_top_k(int64_t k, int64_t min_keep, std::span<float> s) {
  int64_t keep = std::min<int64_t>(std::max(k, min_keep), int64_t(s.size()));
  if (keep <= 0 || keep >= int64_t(s.size())) return;
  std::vector<float> sorted(s.begin(), s.end());
  std::nth_element(sorted.begin(), sorted.begin() + (keep - 1), sorted.end(),
                   std::greater<float>());
  float threshold = sorted[size_t(keep - 1)];
  for (float& x : s)
    if (x < threshold) x = kMinusInf;
}

void keep_top_p(double top_p, int64_t min_keep, std::span<float> s) {
  const size_t n = s.size();
  if (n == 0) return;
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return s[size_t(a)] < s[size_t(b)]; });
  decoding_math::remove_top_p(s.data(), int64_t(n), order.data(), top_p, min_keep);
}

double row_exp_sum_as_built(const float* row, int64_t n, float max, float* out) {
  return row_math::row_exp_sum(row, n, max, out);
}

float row_max_as_built(const float* row, int64_t n) { return row_math::row_max(row, n); }

void log_softmax(std::span<float> s) {
  if (s.empty()) return;
  const float max = row_math::row_max(s.data(), int64_t(s.size()));
  if (max == kMinusInf) return;
  // Σ decoding_math::log_softmax_term, in row_math's lanes.
  const double sum = row_math::row_exp_sum(s.data(), int64_t(s.size()), max, nullptr);
  const float log_sum = decoding_math::log_softmax_log_sum(sum);
  // 16 lanes where the build has them (GCC 12 tunes this CPU for 8): the same operations.
  float* values = s.data();
  const int64_t n = int64_t(s.size());
#pragma omp simd simdlen(16)
  for (int64_t j = 0; j < n; ++j)
    values[j] = decoding_math::log_softmax_value(values[j], max, log_sum);
}

void process_row(const LogitsProcessing& p, std::span<const int32_t> history, std::span<float> s) {
  const int64_t len = int64_t(history.size());
  if (p.repetition_penalty != 1.0f) apply_repetition_penalty(history, p.repetition_penalty, s);
  if (p.no_repeat_ngram_size > 0) ban_repeated_ngrams(history, p.no_repeat_ngram_size, s);
  if (!p.bad_words.empty()) ban_bad_words(history, p.bad_words, s);
  if (p.min_length > 0 && !p.eos_token_ids.empty())
    ban_eos_below(len, p.min_length, p.eos_token_ids, s);
  if (p.min_new_tokens > 0 && !p.eos_token_ids.empty())
    ban_eos_below(len - p.prompt_length, p.min_new_tokens, p.eos_token_ids, s);
  if (p.forced_bos_token_id && len == 1) {
    int32_t bos = *p.forced_bos_token_id;
    force_tokens(std::span<const int32_t>(&bos, 1), s);
  }
  if (!p.forced_eos_token_ids.empty() && len == p.max_length - 1)
    force_tokens(p.forced_eos_token_ids, s);
}

void warp_row(const LogitsWarping& w, std::span<float> s) {
  if (w.temperature != 1.0f) apply_temperature(w.temperature, s);
  if (w.top_k != 0) keep_top_k(w.top_k, w.min_keep, s);
  if (w.top_p < 1.0) keep_top_p(w.top_p, w.min_keep, s);
}

int32_t sample_from_scores(std::span<const float> scores, double u) {
  float max = kMinusInf;
  for (float x : scores) max = std::max(max, x);
  return decoding_math::draw(scores.data(), int64_t(scores.size()), max, u);
}

int32_t torch_multinomial_row(std::span<const float> scores, std::span<const double> uniforms) {
  float max = kMinusInf;
  for (float x : scores) max = std::max(max, x);
  if (max == kMinusInf) return -1;
  // torch sums the exponentials in float vector lanes, in an order that depends on its build
  // (AVX2, AVX-512): 1 / sum is common to every p, so its last bits only matter where the two
  // best p / q are within a rounding of each other.
  double total = 0;
  for (float x : scores) total += std::exp(x - max);
  const float inverse = 1.0f / float(total);
  int32_t best = -1;
  float best_ratio = -1.0f;  // every ratio is >= 0 or NaN
  for (size_t j = 0; j < scores.size(); ++j) {
    const float p = std::exp(scores[j] - max) * inverse;
    const double u = uniforms[j];
    if (p == 0.0f && u != 0.0) continue;  // 0 / q = 0 never wins; spare the logarithm
    const float q = float(TorchCpuGenerator::exponential_of(u));
    const float ratio = p / q;
    if (ratio > best_ratio || (std::isnan(ratio) && !std::isnan(best_ratio))) {
      best = int32_t(j);
      best_ratio = ratio;
    }
  }
  return best;
}

}  // namespace precis::cpu
