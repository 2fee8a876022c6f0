#include "precis/model/common/teacher_forcing.h"

#include <string>

#include "precis/core/error.h"
#include "precis/kernels/convert.h"
#include "precis/kernels/linear.h"
#include "precis/model/common/layers.h"

namespace precis {

void check_batch_fits(const Seq2SeqBatch& b, int64_t batch_size, int64_t source_len,
                      int64_t target_len) {
  check(b.input_ids.shape == Shape({batch_size, source_len}) &&
            b.attention_mask.shape == b.input_ids.shape &&
            b.decoder_input_ids.shape == Shape({batch_size, target_len}),
        "batch shapes (input_ids " + b.input_ids.describe() + ", decoder_input_ids " +
            b.decoder_input_ids.describe() + ") do not match the activations laid out for [" +
            std::to_string(batch_size) + ", " + std::to_string(source_len) + "] -> [" +
            std::to_string(batch_size) + ", " + std::to_string(target_len) + "]");
}

CrossEntropyResult teacher_forced_loss(const Seq2SeqBatch& batch, const Tensor& logits,
                                       const Tensor& losses, float label_smoothing) {
  check(batch.labels.ptr != nullptr, "the loss needs labels");
  const int64_t tokens = logits.size(0) * logits.size(1);
  return cross_entropy_forward(logits.view({tokens, logits.size(2)}), batch.labels.view({tokens}),
                               losses, label_smoothing);
}

void accumulate_teacher_forced_loss(const Seq2SeqBatch& batch, const Tensor& logits,
                                    const Tensor& losses, float label_smoothing,
                                    double global_tokens, double accumulation_steps,
                                    const Tensor& total) {
  check(batch.labels.ptr != nullptr, "the loss needs labels");
  const int64_t tokens = logits.size(0) * logits.size(1);
  cross_entropy_forward_into(logits.view({tokens, logits.size(2)}), batch.labels.view({tokens}),
                             losses, label_smoothing, global_tokens, accumulation_steps, total,
                             batch.ids_checked);
}

void teacher_forced_loss_backward(const Seq2SeqBatch& batch, const Tensor& logits, const Tensor& x,
                                  const Tensor& lm_head, float label_smoothing, float loss_scale,
                                  const Tensor& dx, const Tensor& g_lm_head,
                                  const Tensor& rounded_logits) {
  check(batch.labels.ptr != nullptr, "the backward needs labels");
  const int64_t tokens = logits.size(0) * logits.size(1);
  const Tensor flat = logits.view({tokens, logits.size(2)});
  cross_entropy_backward(flat, batch.labels.view({tokens}), label_smoothing, loss_scale, flat,
                         batch.ids_checked);
  // x's share into dx of the logits' type, or into an fp32 stream's gradient (written, so no
  // scratch: linear_input_share).
  const Tensor& product_grad = rounded_logits.ptr ? rounded_logits : logits;
  if (rounded_logits.ptr) convert(logits, rounded_logits);
  linear_input_share(product_grad, x, lm_head, dx, false, Tensor{}, g_lm_head, Tensor{});
}

}  // namespace precis
