// The encoder-decoder families precis trains, BART and T5, under one set of names, so that
// the optimizer, data parallelism, evaluation and the trainer are written once as templates
// over the config type (explicitly instantiated for both families):
//   ModelFamily<Config>::Model / Params / Activations / GradScratch name the family's types;
//   model_forward / model_backward / model_loss dispatch by overload.
#pragma once

#include "precis/model/bart/bart.h"
#include "precis/model/bart/bart_model.h"
#include "precis/model/common/teacher_forcing.h"
#include "precis/model/t5/t5.h"
#include "precis/model/t5/t5_model.h"

namespace precis {

template <class Config>
struct ModelFamily;

// A family's types, from its model (a PretrainedModel, whose params give Params).
template <class ModelType, class ActivationsType, class GradScratchType>
struct FamilyTypes {
  using Model = ModelType;
  using Params = decltype(ModelType::params);
  using Activations = ActivationsType;
  using GradScratch = GradScratchType;
};

template <>
struct ModelFamily<BartConfig> : FamilyTypes<BartModel, BartActivations, BartGradScratch> {};
template <>
struct ModelFamily<T5Config> : FamilyTypes<T5Model, T5Activations, T5GradScratch> {};

template <class Config>
using ParamsOf = typename ModelFamily<Config>::Params;

inline void model_forward(const BartConfig& c, const BartParams& p, const Seq2SeqBatch& batch,
                          BartActivations& acts, const DropoutContext& dropout = {}) {
  bart_forward(c, p, batch, acts, dropout);
}
inline void model_forward(const T5Config& c, const T5Params& p, const Seq2SeqBatch& batch,
                          T5Activations& acts, const DropoutContext& dropout = {}) {
  t5_forward(c, p, batch, acts, dropout);
}

inline void model_backward(const BartConfig& c, const BartParams& p, const Seq2SeqBatch& batch,
                           BartActivations& acts, const DropoutContext& dropout, float label_smoothing,
                           float loss_scale, BartParams& grads, BartGradScratch& scratch) {
  bart_backward(c, p, batch, acts, dropout, label_smoothing, loss_scale, grads, scratch);
}
inline void model_backward(const T5Config& c, const T5Params& p, const Seq2SeqBatch& batch,
                           T5Activations& acts, const DropoutContext& dropout, float label_smoothing,
                           float loss_scale, T5Params& grads, T5GradScratch& scratch) {
  t5_backward(c, p, batch, acts, dropout, label_smoothing, loss_scale, grads, scratch);
}

// Training's loss, kept on the device: `total` (1) F64 += this batch's loss over
// global_tokens x accumulation_steps. Both families' activations end in logits and losses.
template <class Activations>
void accumulate_model_loss(const Seq2SeqBatch& batch, Activations& acts, float label_smoothing,
                           double global_tokens, double accumulation_steps, const Tensor& total) {
  accumulate_teacher_forced_loss(batch, acts.logits, acts.losses, label_smoothing, global_tokens,
                                 accumulation_steps, total);
}

}  // namespace precis
