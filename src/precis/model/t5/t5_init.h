// T5 models that do not come from a checkpoint: named shapes of the published checkpoints,
// and Hugging Face's initialisation (transformers 4.44 models/t5/modeling_t5.py,
// T5PreTrainedModel._init_weights).
#pragma once

#include <optional>
#include <string>

#include "precis/model/t5/t5_model.h"

namespace precis {

// "t5-tiny" (ours, for tests and demos), "t5-small", "t5-base", "t5-large", "t5-v1_1-small",
// "t5-v1_1-base", "flan-t5-small", "flan-t5-base" (vocab_size set by the caller).
std::optional<T5Config> t5_preset(const std::string& name);
std::string t5_preset_names();

T5Config t5_config_from(const std::string& name_or_path);

// With f = initializer_factor: RMSNorm weights f; shared and an untied lm_head ~ N(0, f);
// q ~ N(0, f (d d_kv)^-1/2); k, v ~ N(0, f d^-1/2); o ~ N(0, f (H d_kv)^-1/2); relative
// attention bias ~ N(0, f d^-1/2); wi, wi_0, wi_1 ~ N(0, f d^-1/2); wo ~ N(0, f d_ff^-1/2).
void initialize_t5(T5Model& model, uint64_t seed);

}  // namespace precis
