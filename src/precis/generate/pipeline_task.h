// What transformers' pipeline(task, model=DIR) takes from the checkpoint's config.json beyond
// generate()'s own settings (transformers 4.44):
// - Pipeline.__init__ (pipelines/base.py) merges config.task_specific_params[task] into the
//   model config and into its generation config (bart-large-cnn's "summarization": num_beams 4,
//   length_penalty 2.0, max_length 142, min_length 56, no_repeat_ngram_size 3, early_stopping);
//   GenerationConfig.update keeps the keys it has and ignores the others;
// - Text2TextGenerationPipeline._parse_and_tokenize puts config.prefix before every input
//   (T5's "summarize: " comes this way, from its task_specific_params).
// Call-time generate kwargs then override these, as they override the generation config.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace precis::generate {

struct PipelineTaskSettings {
  std::string prefix;  // config.prefix after the merge; "" when absent or null
  // task_specific_params[task]: an object (empty when there is none) for
  // GenerationConfig::update, which ignores keys it does not know (as "prefix").
  nlohmann::json generation = nlohmann::json::object();
};

// From `config_json` (a config.json's contents; `where` names it in errors). A
// task_specific_params or prefix of the wrong JSON type throws precis::Error naming the field.
PipelineTaskSettings pipeline_task_settings(const nlohmann::json& config_json,
                                            const std::string& task, const std::string& where);

// The same from DIR/config.json.
PipelineTaskSettings pipeline_task_settings(const std::filesystem::path& dir,
                                            const std::string& task);

}  // namespace precis::generate
