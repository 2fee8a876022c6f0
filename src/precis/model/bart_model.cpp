#include "precis/model/bart_model.h"

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "precis/core/atomic_file.h"
#include "precis/model/checkpoint_files.h"

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
  BartModel m = allocate(BartConfig::from_file(dir / "config.json"));
  CheckpointReader weights = CheckpointReader::open(dir);
  std::set<std::string> used;
  std::vector<std::string> missing;
  visit_parameters(m.config, m.params, [&](const std::string& name, Tensor& slot, Shape, ParamRole role) {
    for (const auto& candidate : candidate_names(name, m.config)) {
      if (weights.contains(candidate)) {
        weights.read(candidate, slot);
        used.insert(candidate);
        return;
      }
    }
    if (role == ParamRole::Buffer) return;  // final_logits_bias: zeros, as HF
    missing.push_back(name);
  });
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size() && i < 5; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 5) list += ", ... (" + std::to_string(missing.size()) + " in all)";
    throw Error(dir.string() + ": checkpoint is missing tensors the config needs: " + list);
  }
  // Aliases of what was loaded, and per-stack version counters of old fairseq ports, are
  // expected leftovers; anything else is reported once, as HF's "weights not used" warning.
  std::vector<std::string> unused;
  for (const auto& name : weights.names()) {
    if (used.count(name)) continue;
    bool alias = name.find("embed_tokens.weight") != std::string::npos || name == "lm_head.weight" ||
                 name.find(".version") != std::string::npos;
    if (!alias) unused.push_back(name);
  }
  if (!unused.empty())
    std::fprintf(stderr, "precis: warning: %s: %zu tensors not used by BART (first: %s)\n",
                 dir.string().c_str(), unused.size(), unused.front().c_str());
  if (m.config.tie_word_embeddings) m.params.lm_head = m.params.shared;
  return m;
}

void BartModel::save(const std::filesystem::path& dir, uint64_t max_shard_bytes) const {
  std::filesystem::create_directories(dir);
  nlohmann::json j = config.to_json();
  write_file_atomic(dir / "config.json", j.dump(2) + "\n");
  std::vector<NamedTensor> tensors;
  BartParams copy = params;  // visit needs non-const slots; views only
  visit_parameters(config, copy, [&](const std::string& name, Tensor& slot, Shape, ParamRole) {
    tensors.push_back({name, slot});
  });
  write_checkpoint(dir, tensors, max_shard_bytes);
}

}  // namespace precis
