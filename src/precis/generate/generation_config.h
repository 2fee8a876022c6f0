// GenerationConfig: the settings of generate() with transformers 4.44's names, defaults and
// precedence (generation/configuration_utils.py, GenerationConfig and from_model_config;
// generation/utils.py, GenerationMixin._prepare_generation_config):
//   per-call overrides > generation_config.json > legacy generation keys of config.json >
//   GenerationConfig() defaults.
// As 4.44 does, a generation_config.json marked "_from_model_config": true is replaced by the
// values derived from config.json when config.json holds non-default generation keys.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "precis/core/hf_semantics.h"
#include "precis/model/common/special_tokens.h"

namespace precis::generate {

// early_stopping: true, false or "never" (BeamHypotheses.is_done).
enum class EarlyStopping { kFalse, kTrue, kNever };

struct GenerationConfig {
  int64_t max_length = 20;                // decoder tokens, the start token included
  std::optional<int64_t> max_new_tokens;  // takes precedence over max_length
  int64_t min_length = 0;                 // decoder tokens, the start token included
  std::optional<int64_t> min_new_tokens;  // takes precedence over min_length
  bool do_sample = false;
  int64_t num_beams = 1;
  EarlyStopping early_stopping = EarlyStopping::kFalse;
  double length_penalty = 1.0;
  int64_t no_repeat_ngram_size = 0;
  double repetition_penalty = 1.0;
  std::vector<std::vector<int32_t>> bad_words_ids;
  std::optional<int32_t> forced_bos_token_id;
  std::vector<int32_t> forced_eos_token_id;  // empty: none (HF accepts an int or a list)
  int64_t num_return_sequences = 1;
  double temperature = 1.0;
  int64_t top_k = 50;
  double top_p = 1.0;
  std::optional<int32_t> pad_token_id, bos_token_id, decoder_start_token_id;
  std::vector<int32_t> eos_token_id;  // empty: none
  uint64_t seed = 0;                  // precis: torch.manual_seed(seed) before sampling (CPU)

  // Sets every key of `j` that names a field (unknown keys are ignored, as from_dict does).
  // `source` names the origin in error messages.
  void update(const nlohmann::json& j, const std::string& source);

  static GenerationConfig from_json(const nlohmann::json& j, const std::string& source);
  // A generation_config.json file for a model whose config.json is `model_config_json`, with
  // generate()'s legacy rule (see from_model_directory).
  static GenerationConfig from_file(const std::filesystem::path& path, const nlohmann::json& model_config_json,
                                    const SpecialTokens& model);
  // GenerationConfig.from_model_config: the generation keys of config.json, and the token ids
  // the model config resolves (BART: including force_bos_token_to_be_generated).
  static GenerationConfig from_model_config(const nlohmann::json& config_json,
                                            const SpecialTokens& model, const std::string& source);
  // What from_pretrained + generate() use for a checkpoint directory.
  static GenerationConfig from_model_directory(const std::filesystem::path& dir,
                                               const SpecialTokens& model);
};

// A config with lengths and token ids resolved for one call (generate()'s set-up:
// GenerationMixin._prepare_special_tokens and _prepare_generated_length).
struct ResolvedGeneration {
  GenerationConfig config;  // max_length and min_length as used (start token included)
  int32_t pad_token_id = 1;
  int32_t decoder_start_token_id = 2;
  std::vector<int32_t> eos_token_ids;  // may be empty
  int64_t prompt_length = 1;           // decoder prompt: the start token
  // Whose beam search: 4.44's BeamSearchScorer or 5.x's vectorised _beam_search (beam_search.h).
  HfSemantics semantics = HfSemantics::kV5;
};

// Fills token ids from the model where the config has none, applies max_new_tokens and
// min_new_tokens, and validates as GenerationConfig.validate() and generate() do (the same
// errors where HF raises); `semantics` is the process's hf_semantics(). Throws precis::Error.
ResolvedGeneration resolve(const GenerationConfig& config, const SpecialTokens& model);

EarlyStopping early_stopping_from_string(const std::string& s);  // "true", "false", "never"

}  // namespace precis::generate
