// Cross-entropy with label smoothing (transformers' LabelSmoother; F.cross_entropy when
// ε = 0) for one row of logits, given the row's reductions, which the caller makes (the max,
// Σ exp(l - max) and Σ l, in double): shared by the CPU loop (cpu/cross_entropy_cpu.cpp) and the
// CUDA kernel.
#pragma once

#include "precis/core/host_device.h"

namespace precis::cross_entropy_math {

// loss = (1 - ε)·(log Z - l_y) + ε·(log Z - mean_v l_v), log Z = log Σ exp(l) in double.
PRECIS_HOST_DEVICE inline double smoothed_loss(double log_z, float label_logit, double logit_sum,
                                               double vocab, float label_smoothing) {
  double nll = log_z - label_logit;
  double smooth = log_z - logit_sum / vocab;
  return (1.0 - label_smoothing) * nll + label_smoothing * smooth;
}

// d loss / d l_j without the label's term: p_j·scale - scale·ε/V, with p_j·scale as
// exp(l_j - max)·p_scale (p_scale = scale / Σ exp(l - max)) and uniform = scale·ε/V. The label's
// logit then takes -scale·(1 - ε) more (label_gradient).
PRECIS_HOST_DEVICE inline float logit_gradient(float exp_shifted, float p_scale, float uniform) {
  return exp_shifted * p_scale - uniform;
}
PRECIS_HOST_DEVICE inline float label_gradient(float loss_scale, float label_smoothing) {
  return loss_scale * (1.0f - label_smoothing);
}

}  // namespace precis::cross_entropy_math
