// What a model family names for the code written once over all families (the optimizer, data
// parallelism, evaluation, the trainer): ModelFamily<Config> gives the family's Model, Params,
// Activations, GradScratch and IncrementalDecoder (generate()'s KV-cached Seq2SeqDecoder) types,
// and its forward and backward functions (seq2seq_family.h's model_forward / model_backward
// call them). Each family specializes it in its own <family>_family.h.
#pragma once

namespace precis {

template <class Config>
struct ModelFamily;

// A family's types, from its model (a PretrainedModel, whose params give Params).
template <class ModelType, class ActivationsType, class GradScratchType,
          class IncrementalDecoderType>
struct FamilyTypes {
  using Model = ModelType;
  using Params = decltype(ModelType::params);
  using Activations = ActivationsType;
  using GradScratch = GradScratchType;
  using IncrementalDecoder = IncrementalDecoderType;
  // Why the family cannot train in float16 (--fp16), or nullptr when it can.
  static constexpr const char* fp16_refusal = nullptr;
};

template <class Config>
using ParamsOf = typename ModelFamily<Config>::Params;

}  // namespace precis
