#include "precis/kernels/cross_entropy.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

CrossEntropyResult cross_entropy_forward(const Tensor& logits, const Tensor& labels,
                                         const Tensor& losses, float label_smoothing) {
  int64_t vocab = logits.shape[-1], n = logits.numel() / vocab;
  check(labels.numel() == n && losses.numel() == n,
        "cross entropy: logits " + logits.describe() + ", labels " + labels.describe());
  const int32_t* y = labels.i32();
  for (int64_t i = 0; i < n; ++i)
    check(y[i] == kIgnoreIndex || (y[i] >= 0 && y[i] < vocab),
          "label " + std::to_string(y[i]) + " is outside the vocabulary of " +
              std::to_string(vocab) + " (and is not -100)");
  CrossEntropyResult r;
  r.loss_sum = cpu::cross_entropy_forward(logits.f32(), y, losses.f32(), n, vocab, label_smoothing,
                                          &r.counted);
  return r;
}

void cross_entropy_backward(const Tensor& logits, const Tensor& labels, float label_smoothing,
                            float loss_scale, const Tensor& dlogits) {
  int64_t vocab = logits.shape[-1], n = logits.numel() / vocab;
  check(labels.numel() == n && dlogits.shape == logits.shape,
        "cross entropy backward: logits " + logits.describe() + ", labels " + labels.describe() +
            ", dlogits " + dlogits.describe());
  const int32_t* y = labels.i32();
  for (int64_t i = 0; i < n; ++i)
    check(y[i] == kIgnoreIndex || (y[i] >= 0 && y[i] < vocab),
          "label " + std::to_string(y[i]) + " is outside the vocabulary of " +
              std::to_string(vocab) + " (and is not -100)");
  cpu::cross_entropy_backward(logits.f32(), y, dlogits.f32(), n, vocab, label_smoothing,
                              loss_scale);
}

}  // namespace precis
