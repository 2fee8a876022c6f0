// A model of one family in memory: its config and its parameters in one arena, loaded from
// and saved to a Hugging Face checkpoint directory (config.json + model.safetensors, or shards
// with model.safetensors.index.json). Written once for both families: a family gives its
// config and parameter types, visit_parameters / allocate_parameters / parameter_bytes /
// parameter_count over them, and pretrained_naming (where a checkpoint may hold each tensor).
#pragma once

#include <filesystem>

#include "precis/core/arena.h"
#include "precis/core/error.h"
#include "precis/model/common/pretrained_weights.h"

namespace precis {

template <class Config, class Params>
struct PretrainedModel {
  Config config;
  Arena arena;  // owns every parameter and buffer
  Params params;

  // Fresh parameters for `config` (zeros; initialize_bart / initialize_t5 give HF's
  // initialisation).
  static PretrainedModel allocate(const Config& config) {
    PretrainedModel m;
    m.config = config;
    m.arena = Arena(parameter_bytes(config));
    allocate_parameters(config, m.params, m.arena);
    return m;
  }

  // Reads config.json and the weights with HF's rules (pretrained_weights.h and the family's
  // pretrained_naming): F16/BF16 converted to F32; missing tensors and wrong shapes are errors
  // naming the directory and the tensor. A tied LM head is the shared embedding.
  static PretrainedModel load(const std::filesystem::path& dir) {
    check(std::filesystem::is_directory(dir), dir.string() + ": not a model directory");
    const Config config = Config::from_file(dir / "config.json");
    check_config_fits_weights(dir, parameter_count(config));
    PretrainedModel m = allocate(config);
    load_pretrained_weights(
        dir, [&](const ParamVisitor& visit) { visit_parameters(m.config, m.params, visit); },
        pretrained_naming(m.config));
    if (m.config.tie_word_embeddings) m.params.lm_head = m.params.shared;
    return m;
  }

  // Writes config.json and model.safetensors (sharded above max_shard_bytes) as
  // save_pretrained does: the tied group only under the shared embedding's name.
  void save(const std::filesystem::path& dir, uint64_t max_shard_bytes = 5'000'000'000) const {
    Params copy = params;  // visit needs non-const slots; views only
    save_pretrained(
        dir, config.to_json(),
        [&](const ParamVisitor& visit) { visit_parameters(config, copy, visit); }, max_shard_bytes);
  }
};

}  // namespace precis
