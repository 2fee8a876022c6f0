// Models that do not come from a checkpoint: named size presets, Hugging Face's
// initialisation (BartPretrainedModel._init_weights), and run_summarization's
// resize_token_embeddings when the tokenizer has more tokens than the model has rows.
#pragma once

#include <optional>
#include <string>

#include "precis/model/bart/bart_model.h"

namespace precis {

// "bart-tiny", "bart-small", "bart-base", "bart-large" (vocab_size set by the caller).
std::optional<BartConfig> bart_preset(const std::string& name);
std::string bart_preset_names();  // for messages

// A config from a preset name, a config.json file, or a directory holding one.
BartConfig bart_config_from(const std::string& name_or_path);

// HF's initialisation, drawn from our counter-based RNG: every Linear weight and embedding
// ~ N(0, init_std), biases 0, the padding row of the shared embedding 0, LayerNorm weight 1 /
// bias 0, final_logits_bias 0.
void initialize_bart(BartModel& model, uint64_t seed);

// A copy of `model` with `vocab_size` embedding rows: old rows kept, new rows ~ N(0, init_std),
// final_logits_bias padded with zeros (as resize_token_embeddings does).
BartModel resize_token_embeddings(const BartModel& model, int64_t vocab_size, uint64_t seed);

}  // namespace precis
