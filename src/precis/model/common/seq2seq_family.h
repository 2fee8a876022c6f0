// The encoder-decoder families precis trains under one set of names, so that the optimizer,
// data parallelism, evaluation and the trainer are written once as templates over the config
// type (explicitly instantiated for every family of model/families.h):
//   ModelFamily<Config>::Model / Params / Activations / GradScratch name the family's types;
//   model_forward / model_backward run the family's forward and backward.
#pragma once

#include "precis/model/common/teacher_forcing.h"
#include "precis/model/families.h"

namespace precis {

template <class Config>
void model_forward(const Config& c, const ParamsOf<Config>& p, const Seq2SeqBatch& batch,
                   typename ModelFamily<Config>::Activations& acts,
                   const DropoutContext& dropout = {}) {
  ModelFamily<Config>::forward(c, p, batch, acts, dropout);
}

// Parameter gradients of loss_scale x Σ per-token loss accumulate into grads (bart_backward).
template <class Config>
void model_backward(const Config& c, const ParamsOf<Config>& p, const Seq2SeqBatch& batch,
                    typename ModelFamily<Config>::Activations& acts, const DropoutContext& dropout,
                    float label_smoothing, float loss_scale, ParamsOf<Config>& grads,
                    typename ModelFamily<Config>::GradScratch& scratch) {
  ModelFamily<Config>::backward(c, p, batch, acts, dropout, label_smoothing, loss_scale, grads,
                                scratch);
}

// Training's loss, kept on the device: `total` (1) F64 += this batch's loss over
// global_tokens x accumulation_steps. Every family's activations end in logits and losses.
template <class Activations>
void accumulate_model_loss(const Seq2SeqBatch& batch, Activations& acts, float label_smoothing,
                           double global_tokens, double accumulation_steps, const Tensor& total) {
  accumulate_teacher_forced_loss(batch, acts.logits, acts.losses, label_smoothing, global_tokens,
                                 accumulation_steps, total);
}

}  // namespace precis
