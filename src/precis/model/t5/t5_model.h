// A T5 model in memory (T5ForConditionalGeneration: T5, T5 v1.1, FLAN-T5; pretrained_model.h).
#pragma once

#include "precis/model/common/pretrained_model.h"
#include "precis/model/common/pretrained_weights.h"
#include "precis/model/t5/t5_params.h"

namespace precis {

// Where a T5 checkpoint may hold each tensor: the shared embedding under any alias (shared /
// encoder.embed_tokens / decoder.embed_tokens / a tied lm_head); the stray
// decoder.block.0.layer.1.EncDecAttention.relative_attention_bias of old checkpoints is ignored.
PretrainedNaming pretrained_naming(const T5Config& config);

using T5Model = PretrainedModel<T5Config, T5Params>;

}  // namespace precis
