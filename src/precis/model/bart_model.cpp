#include "precis/model/bart_model.h"

#include "precis/model/pretrained_weights.h"

namespace precis {

namespace {

// Names under which HF checkpoints may hold `name`: the name itself, then (for the tied
// embedding) its aliases, each also without the "model." prefix of BartForConditionalGeneration.
std::vector<std::string> candidate_names(const std::string& name, const BartConfig& c) {
  std::vector<std::string> names{name};
  if (name == "model.shared.weight") {
    names.push_back("model.encoder.embed_tokens.weight");
    names.push_back("model.decoder.embed_tokens.weight");
    if (c.tie_word_embeddings) names.push_back("lm_head.weight");
  }
  std::vector<std::string> all = names;
  for (const auto& n : names)
    if (n.rfind("model.", 0) == 0) all.push_back(n.substr(6));
  return all;
}

// Aliases of what was loaded, and per-stack version counters of old fairseq ports, are
// expected leftovers.
bool expected_leftover(const std::string& name) {
  return name.find("embed_tokens.weight") != std::string::npos || name == "lm_head.weight" ||
         name.find(".version") != std::string::npos;
}

}  // namespace

BartModel BartModel::allocate(const BartConfig& config) {
  BartModel m;
  m.config = config;
  m.arena = Arena(parameter_bytes(config));
  allocate_parameters(config, m.params, m.arena);
  return m;
}

BartModel BartModel::load(const std::filesystem::path& dir) {
  check(std::filesystem::is_directory(dir), dir.string() + ": not a model directory");
  const BartConfig config = BartConfig::from_file(dir / "config.json");
  check_config_fits_weights(dir, parameter_count(config));
  BartModel m = allocate(config);
  load_pretrained_weights(
      dir, [&](const ParamVisitor& visit) { visit_parameters(m.config, m.params, visit); },
      {"BART", [&](const std::string& name) { return candidate_names(name, m.config); },
       expected_leftover});
  if (m.config.tie_word_embeddings) m.params.lm_head = m.params.shared;
  return m;
}

void BartModel::save(const std::filesystem::path& dir, uint64_t max_shard_bytes) const {
  BartParams copy = params;  // visit needs non-const slots; views only
  save_pretrained(
      dir, config.to_json(),
      [&](const ParamVisitor& visit) { visit_parameters(config, copy, visit); }, max_shard_bytes);
}

}  // namespace precis
