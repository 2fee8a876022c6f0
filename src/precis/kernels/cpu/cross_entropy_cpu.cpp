#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/cross_entropy_math.h"

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
    float max = row[0];
    for (int64_t j = 1; j < vocab; ++j) max = row[j] > max ? row[j] : max;
    double sum = 0.0, logit_sum = 0.0;
    for (int64_t j = 0; j < vocab; ++j) {
      sum += std::exp(double(row[j] - max));
      logit_sum += row[j];
    }
    double log_z = std::log(sum) + max;
    double loss = cross_entropy_math::smoothed_loss(log_z, row[labels[i]], logit_sum, double(vocab),
                                                    label_smoothing);
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
      for (int64_t j = 0; j < vocab; ++j) drow[j] = 0.0f;
      continue;
    }
    float max = row[0];
    for (int64_t j = 1; j < vocab; ++j) max = row[j] > max ? row[j] : max;
    // exp in float (as torch's softmax), summed in double.
    double sum = 0.0;
    for (int64_t j = 0; j < vocab; ++j) sum += std::exp(row[j] - max);
    // p_j = exp(l_j - max) / sum, scaled by loss_scale in the same multiplication.
    float p_scale = float(double(loss_scale) / sum);
    // loss = (1-ε)·(log Z - l_y) + ε·(log Z - mean_v l_v)
    //   d/dl_j = p_j                  (log Z, weight (1-ε) + ε = 1)
    //          - (1-ε)·[j == y]       (the label's logit)
    //          - ε/V                  (the mean over the vocabulary)
    float uniform = loss_scale * label_smoothing / float(vocab);
#pragma omp simd
    for (int64_t j = 0; j < vocab; ++j)
      drow[j] = cross_entropy_math::logit_gradient(std::exp(row[j] - max), p_scale, uniform);
    drow[labels[i]] -= cross_entropy_math::label_gradient(loss_scale, label_smoothing);
  }
}

}  // namespace precis::cpu
