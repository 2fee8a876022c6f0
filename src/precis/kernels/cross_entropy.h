// Softmax cross-entropy over the vocabulary, with torch's ignore_index = -100 and
// Hugging Face's LabelSmoother semantics when label_smoothing > 0.
#pragma once

#include "precis/core/tensor.h"

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

}  // namespace precis
