#include <algorithm>
#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/cross_entropy_math.h"
#include "precis/kernels/row_math.h"

namespace precis::cpu {

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
    const float max = row_math::row_max(row, vocab);
    const double log_z = std::log(row_math::row_exp_sum(row, vocab, max, nullptr)) + max;
    const double loss = cross_entropy_math::smoothed_loss(
        log_z, row[labels[i]], row_math::row_sum(row, vocab), double(vocab), label_smoothing);
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
    const float max = row_math::row_max(row, vocab);
    // drow holds exp(l_j - max) after this; p_j = exp(l_j - max) / sum, scaled by loss_scale in
    // the same multiplication.
    const float p_scale = float(double(loss_scale) / row_math::row_exp_sum(row, vocab, max, drow));
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
