#include "precis/model/t5_model.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "precis/core/atomic_file.h"
#include "precis/model/checkpoint_files.h"

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
  T5Model m = allocate(T5Config::from_file(dir / "config.json"));
  CheckpointReader weights = CheckpointReader::open(dir);
  std::set<std::string> used;
  std::vector<std::string> missing;
  visit_parameters(m.config, m.params, [&](const std::string& name, Tensor& slot, Shape, ParamRole) {
    for (const auto& candidate : candidate_names(name, m.config)) {
      if (weights.contains(candidate)) {
        weights.read(candidate, slot);
        used.insert(candidate);
        return;
      }
    }
    missing.push_back(name);
  });
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size() && i < 5; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 5) list += ", ... (" + std::to_string(missing.size()) + " in all)";
    throw Error(dir.string() + ": checkpoint is missing tensors the config needs: " + list);
  }
  std::vector<std::string> unused;
  for (const auto& name : weights.names())
    if (!used.count(name) && !expected_leftover(name)) unused.push_back(name);
  if (!unused.empty())
    std::fprintf(stderr, "precis: warning: %s: %zu tensors not used by T5 (first: %s)\n",
                 dir.string().c_str(), unused.size(), unused.front().c_str());
  if (m.config.tie_word_embeddings) m.params.lm_head = m.params.shared;
  return m;
}

void T5Model::save(const std::filesystem::path& dir, uint64_t max_shard_bytes) const {
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "config.json", config.to_json().dump(2) + "\n");
  std::vector<NamedTensor> tensors;
  T5Params copy = params;  // visit needs non-const slots; views only
  visit_parameters(config, copy, [&](const std::string& name, Tensor& slot, Shape, ParamRole) {
    tensors.push_back({name, slot});
  });
  write_checkpoint(dir, tensors, max_shard_bytes);
}

}  // namespace precis
