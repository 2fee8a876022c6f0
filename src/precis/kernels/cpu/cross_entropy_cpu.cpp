#include <algorithm>
#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/cross_entropy_math.h"
#include "precis/kernels/exp_math.h"

namespace precis::cpu {

namespace {

// A row's sums in double, in kLanes partial sums (element j to lane j % kLanes) added in one
// fixed order at the end: the order of every addition is the same at any vector width, so the
// bits do not depend on -march, and the loop vectorises (a single running sum cannot).
constexpr int64_t kLanes = 8;

struct LaneSums {
  double lane[kLanes] = {};
  // Adds v[0..n) as elements first..first+n of the row; `first` a multiple of kLanes.
  void add(const float* v, int64_t n) {
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
      for (int64_t l = 0; l < kLanes; ++l) lane[l] += double(v[j + l]);
    for (int64_t l = 0; j + l < n; ++l) lane[l] += double(v[j + l]);
  }
  double total() const {
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  }
};

// The max is exact in any order.
float row_max(const float* row, int64_t vocab) {
  float max = row[0];
#pragma omp simd reduction(max : max)
  for (int64_t j = 1; j < vocab; ++j) max = row[j] > max ? row[j] : max;
  return max;
}

// Σ_j exp(row[j] - max) in double, each exponential in float as torch's softmax takes it, a
// chunk at a time. Writes the exponentials to `out` when given (`out` may be `row`).
constexpr int64_t kChunk = 512;  // a multiple of kLanes
double exp_sum(const float* row, float max, int64_t vocab, float* out) {
  LaneSums sums;
  float buffer[kChunk];
  for (int64_t start = 0; start < vocab; start += kChunk) {
    const int64_t n = std::min(kChunk, vocab - start);
    float* e = out ? out + start : buffer;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) e[j] = exp_math::exp(row[start + j] - max);
    sums.add(e, n);
  }
  return sums.total();
}

double row_sum(const float* row, int64_t vocab) {
  LaneSums sums;
  sums.add(row, vocab);
  return sums.total();
}

}  // namespace

double cross_entropy_forward(const float* logits, const int32_t* labels, float* losses, int64_t n,
                             int64_t vocab, float label_smoothing, int64_t* counted) {
  double total = 0.0;
  int64_t count = 0;
#pragma omp parallel for schedule(static) reduction(+ : total, count)
  for (int64_t i = 0; i < n; ++i) {
    if (labels[i] == kIgnoreIndex) {
      losses[i] = 0.0f;
      continue;
    }
    const float* row = logits + i * vocab;
    const float max = row_max(row, vocab);
    const double log_z = std::log(exp_sum(row, max, vocab, nullptr)) + max;
    const double loss = cross_entropy_math::smoothed_loss(log_z, row[labels[i]], row_sum(row, vocab),
                                                          double(vocab), label_smoothing);
    losses[i] = float(loss);
    total += loss;
    count += 1;
  }
  *counted = count;
  return total;
}

void cross_entropy_backward(const float* logits, const int32_t* labels, float* dlogits, int64_t n,
                            int64_t vocab, float label_smoothing, float loss_scale) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float* row = logits + i * vocab;
    float* drow = dlogits + i * vocab;  // may be `row` itself: each element is read, then written
    if (labels[i] == kIgnoreIndex) {
      std::fill(drow, drow + vocab, 0.0f);
      continue;
    }
    const float max = row_max(row, vocab);
    // drow holds exp(l_j - max) after this; p_j = exp(l_j - max) / sum, scaled by loss_scale in
    // the same multiplication.
    const float p_scale = float(double(loss_scale) / exp_sum(row, max, vocab, drow));
    // loss = (1-ε)·(log Z - l_y) + ε·(log Z - mean_v l_v)
    //   d/dl_j = p_j                  (log Z, weight (1-ε) + ε = 1)
    //          - (1-ε)·[j == y]       (the label's logit)
    //          - ε/V                  (the mean over the vocabulary)
    const float uniform = loss_scale * label_smoothing / float(vocab);
#pragma omp simd
    for (int64_t j = 0; j < vocab; ++j)
      drow[j] = cross_entropy_math::logit_gradient(drow[j], p_scale, uniform);
    drow[labels[i]] -= cross_entropy_math::label_gradient(loss_scale, label_smoothing);
  }
}

}  // namespace precis::cpu
