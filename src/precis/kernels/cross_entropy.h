// Softmax cross-entropy over the vocabulary, with torch's ignore_index = -100 and
// Hugging Face's LabelSmoother semantics when label_smoothing > 0.
// Logits and their gradient F32, or on CUDA one 16-bit type (BF16, F16); losses always F32.
#pragma once

#include "precis/core/tensor.h"
#include "precis/kernels/token_ids.h"

namespace precis {

constexpr int32_t kIgnoreIndex = -100;

struct CrossEntropyResult {
  double loss_sum = 0.0;  // summed over the counted positions
  int64_t counted = 0;    // positions whose label is not kIgnoreIndex
  double mean() const { return loss_sum / double(counted); }  // NaN when nothing counted, as torch
};

// logits (N, V); labels (N) I32; losses (N) per position (0 where ignored).
CrossEntropyResult cross_entropy_forward(const Tensor& logits, const Tensor& labels,
                                         const Tensor& losses, float label_smoothing = 0.0f);

// Training's form: the same per-position losses, and the micro-batch's share of the step's
// loss added where it was computed, to total (1) F64:
//   total += Σ_counted loss_i / global_tokens / accumulation_steps
// (in double, as the host form's loss_sum). Nothing is read back to the host where the labels
// are `known` to be in range (CheckedIds; otherwise their check reads one value back).
void cross_entropy_forward_into(const Tensor& logits, const Tensor& labels, const Tensor& losses,
                                float label_smoothing, double global_tokens,
                                double accumulation_steps, const Tensor& total,
                                CheckedIds known = {});

// dlogits = d(loss_scale * Σ_counted loss_i) / d logits (=). With p = softmax(logits_i), the
// per-position loss (1-ε)·(-log p[y]) + ε·mean_v(-log p[v]) has gradient
//   p[v] - (1-ε)·[v == y] - ε/V.
// Rows labelled -100 get zeros. loss_scale is 1/counted for the mean (the model's loss and
// LabelSmoother's), or 1/(counted over the accumulation group). dlogits may alias logits.
void cross_entropy_backward(const Tensor& logits, const Tensor& labels, float label_smoothing,
                            float loss_scale, const Tensor& dlogits, CheckedIds known = {});

}  // namespace precis
