#include "precis/kernels/cross_entropy.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"
#include "precis/kernels/token_ids.h"

namespace precis {

namespace {

void check_labels(const Tensor& labels, int64_t vocab, CheckedIds known = {}) {
  if (known.covers(vocab)) return;
  InvalidId bad = first_invalid_id(labels, vocab, kIgnoreIndex);
  check(bad.index < 0, "label " + std::to_string(bad.id) + " is outside the vocabulary of " +
                           std::to_string(vocab) + " (and is not -100)");
}

// The losses are fp32 whatever the logits' type (fp32, or bf16/fp16 on CUDA).
void check_losses(const Tensor& logits, const Tensor& losses) {
  check(losses.dtype == DType::F32, "cross entropy: logits " + logits.describe() + ", losses " +
                                        losses.describe() + " (the losses are F32)");
}

}  // namespace

CrossEntropyResult cross_entropy_forward(const Tensor& logits, const Tensor& labels,
                                         const Tensor& losses, float label_smoothing) {
  int64_t vocab = logits.shape[-1], n = logits.numel() / vocab;
  check(labels.numel() == n && losses.numel() == n,
        "cross entropy: logits " + logits.describe() + ", labels " + labels.describe());
  check_losses(logits, losses);
  check_labels(labels, vocab);
  CrossEntropyResult r;
  r.loss_sum = dispatch_op(
      "cross entropy", {&logits, &labels, &losses},
      [&] {
        return cpu::cross_entropy_forward(logits.f32(), labels.i32(), losses.f32(), n, vocab,
                                          label_smoothing, &r.counted);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::cross_entropy_forward, logits.dtype, logits.ptr,
                       labels.i32(), losses.f32(), n, vocab, label_smoothing, &r.counted);
      });
  return r;
}

void cross_entropy_forward_into(const Tensor& logits, const Tensor& labels, const Tensor& losses,
                                float label_smoothing, double global_tokens,
                                double accumulation_steps, const Tensor& total, CheckedIds known) {
  int64_t vocab = logits.shape[-1], n = logits.numel() / vocab;
  check(
      labels.numel() == n && losses.numel() == n && total.numel() == 1 && total.dtype == DType::F64,
      "cross entropy: logits " + logits.describe() + ", labels " + labels.describe() + ", total " +
          total.describe() + " (one F64)");
  check_losses(logits, losses);
  check_labels(labels, vocab, known);
  dispatch_op(
      "cross entropy", {&logits, &labels, &losses, &total},
      [&] {
        int64_t counted = 0;
        const double sum = cpu::cross_entropy_forward(logits.f32(), labels.i32(), losses.f32(), n,
                                                      vocab, label_smoothing, &counted);
        total.data<double>()[0] += sum / global_tokens / accumulation_steps;
      },
      [&](const CudaOp& gpu) {
        gpu.run(&cuda::Kernels::cross_entropy_forward_into, logits.dtype, logits.ptr, labels.i32(),
                losses.f32(), n, vocab, label_smoothing, global_tokens, accumulation_steps,
                total.data<double>());
      });
}

void cross_entropy_backward(const Tensor& logits, const Tensor& labels, float label_smoothing,
                            float loss_scale, const Tensor& dlogits, CheckedIds known) {
  int64_t vocab = logits.shape[-1], n = logits.numel() / vocab;
  check(labels.numel() == n && dlogits.shape == logits.shape && dlogits.dtype == logits.dtype,
        "cross entropy backward: logits " + logits.describe() + ", labels " + labels.describe() +
            ", dlogits " + dlogits.describe());
  check_labels(labels, vocab, known);
  return dispatch_op(
      "cross entropy backward", {&logits, &labels, &dlogits},
      [&] {
        return cpu::cross_entropy_backward(logits.f32(), labels.i32(), dlogits.f32(), n, vocab,
                                           label_smoothing, loss_scale);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::cross_entropy_backward, logits.dtype, logits.ptr,
                       labels.i32(), dlogits.ptr, n, vocab, label_smoothing, loss_scale);
      });
}

}  // namespace precis
