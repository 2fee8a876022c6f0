// A BART model in memory (pretrained_model.h).
#pragma once

#include "precis/model/bart/bart_params.h"
#include "precis/model/common/pretrained_model.h"
#include "precis/model/common/pretrained_weights.h"

namespace precis {

// Where a BART checkpoint may hold each tensor: any alias of the tied embedding
// (model.shared / *.embed_tokens / a tied lm_head), and checkpoints of a bare BartModel (no
// "model." prefix); a missing final_logits_bias stays zeros (a buffer).
PretrainedNaming pretrained_naming(const BartConfig& config);

using BartModel = PretrainedModel<BartConfig, BartParams>;

}  // namespace precis
