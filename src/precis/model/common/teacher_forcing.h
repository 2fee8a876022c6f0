// The two ends of a teacher-forced step that BART and T5 share: the batch must fit the
// activations it runs through, and the loss is the cross-entropy of the logits against the
// labels (decoder_input_ids being the labels shifted right), which the backward starts from.
#pragma once

#include <cstdint>

#include "precis/data/seq2seq_batch.h"
#include "precis/kernels/cross_entropy.h"

namespace precis {

// Throws Error, naming both sides, unless `batch` is (batch_size, source_len) ->
// (batch_size, target_len): the shapes the activations were laid out for.
void check_batch_fits(const Seq2SeqBatch& batch, int64_t batch_size, int64_t source_len,
                      int64_t target_len);

// Cross-entropy of logits (B, T, V) against batch.labels (torch's mean over non-ignored
// tokens); per-token losses into `losses` (B*T).
CrossEntropyResult teacher_forced_loss(const Seq2SeqBatch& batch, const Tensor& logits,
                                       const Tensor& losses, float label_smoothing);

// The same for either family's activations (BART's and T5's both end in logits and losses).
template <class Activations>
CrossEntropyResult model_loss(const Seq2SeqBatch& batch, Activations& acts,
                              float label_smoothing = 0.0f) {
  return teacher_forced_loss(batch, acts.logits, acts.losses, label_smoothing);
}

// Training's form: the loss over global_tokens x accumulation_steps added to `total` (1) F64 on
// the device (cross_entropy_forward_into); nothing read back.
void accumulate_teacher_forced_loss(const Seq2SeqBatch& batch, const Tensor& logits,
                                    const Tensor& losses, float label_smoothing,
                                    double global_tokens, double accumulation_steps,
                                    const Tensor& total);

// The backward's start, through both families' LM head logits = x · lm_headᵀ (+ a bias that is
// a buffer, so no gradient): logits (B, T, V) is overwritten with the gradient of
// loss_scale × Σ per-token loss, dx (B, T, d) is written and g_lm_head (V, d) accumulates.
// dx may be F32 for 16-bit logits (a mixed-precision stream: linear_input_share). Where the
// logits are fp32 over a 16-bit product (BART under mixed precision: `rounded_logits` defined,
// (B, T, V) of x's type), their gradient is rounded into it for the product's backward.
void teacher_forced_loss_backward(const Seq2SeqBatch& batch, const Tensor& logits, const Tensor& x,
                                  const Tensor& lm_head, float label_smoothing, float loss_scale,
                                  const Tensor& dx, const Tensor& g_lm_head,
                                  const Tensor& rounded_logits = Tensor{});

}  // namespace precis
