#include "precis/model/t5_model.h"

#include "precis/model/pretrained_weights.h"

namespace precis {

namespace {

std::vector<std::string> candidate_names(const std::string& name, const T5Config& c) {
  std::vector<std::string> names{name};
  if (name == "shared.weight") {
    names.push_back("encoder.embed_tokens.weight");
    names.push_back("decoder.embed_tokens.weight");
    if (c.tie_word_embeddings) names.push_back("lm_head.weight");
  }
  return names;
}

bool expected_leftover(const std::string& name) {
  return name.find("embed_tokens.weight") != std::string::npos || name == "lm_head.weight" ||
         name == "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight";
}

}  // namespace

T5Model T5Model::allocate(const T5Config& config) {
  T5Model m;
  m.config = config;
  m.arena = Arena(parameter_bytes(config));
  allocate_parameters(config, m.params, m.arena);
  return m;
}

T5Model T5Model::load(const std::filesystem::path& dir) {
  check(std::filesystem::is_directory(dir), dir.string() + ": not a model directory");
  const T5Config config = T5Config::from_file(dir / "config.json");
  check_config_fits_weights(dir, parameter_count(config));
  T5Model m = allocate(config);
  load_pretrained_weights(
      dir, [&](const ParamVisitor& visit) { visit_parameters(m.config, m.params, visit); },
      {"T5", [&](const std::string& name) { return candidate_names(name, m.config); },
       expected_leftover});
  if (m.config.tie_word_embeddings) m.params.lm_head = m.params.shared;
  return m;
}

void T5Model::save(const std::filesystem::path& dir, uint64_t max_shard_bytes) const {
  T5Params copy = params;  // visit needs non-const slots; views only
  save_pretrained(
      dir, config.to_json(),
      [&](const ParamVisitor& visit) { visit_parameters(config, copy, visit); }, max_shard_bytes);
}

}  // namespace precis
