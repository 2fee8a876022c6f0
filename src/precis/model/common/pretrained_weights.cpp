#include "precis/model/common/pretrained_weights.h"

#include <cstdio>
#include <set>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/hf_semantics.h"
#include "precis/io/checkpoint_files.h"

namespace precis {

void check_config_fits_weights(const std::filesystem::path& dir, int64_t parameter_count) {
  std::error_code ec;
  uintmax_t bytes = 0;
  bool any = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".safetensors") continue;
    const uintmax_t size = entry.file_size(ec);
    if (ec) continue;
    bytes += size;
    any = true;
  }
  if (!any) return;
  check(uintmax_t(parameter_count) <= bytes / 2,
        (dir / "config.json").string() + " describes a model of " + std::to_string(parameter_count) +
            " parameters, but the weights files in " + dir.string() + " hold only " + std::to_string(bytes) +
            " bytes (at least 2 per parameter): config.json does not match the weights");
}

void load_pretrained_weights(const std::filesystem::path& dir, const ParameterWalk& walk,
                             const PretrainedNaming& naming) {
  CheckpointReader weights = CheckpointReader::open(dir);
  std::set<std::string> used;
  std::vector<std::string> missing;
  walk([&](const std::string& name, Tensor& slot, Shape, ParamRole role) {
    for (const auto& candidate : naming.candidates(name)) {
      if (weights.contains(candidate)) {
        weights.read(candidate, slot);
        used.insert(candidate);
        return;
      }
    }
    if (role == ParamRole::Buffer) return;  // BART's final_logits_bias: zeros, as HF
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
    if (!used.count(name) && !naming.expected_leftover(name)) unused.push_back(name);
  if (!unused.empty())
    std::fprintf(stderr, "precis: warning: %s: %zu tensors not used by %s (first: %s)\n",
                 dir.string().c_str(), unused.size(), naming.family, unused.front().c_str());
}

void save_pretrained(const std::filesystem::path& dir, const nlohmann::json& config,
                     const ParameterWalk& walk, uint64_t max_shard_bytes) {
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "config.json", config.dump(2) + "\n");
  std::vector<NamedTensor> tensors;
  // transformers 5's BART ties the encoder's and decoder's embed_tokens to model.shared only with
  // tie_word_embeddings; an untied checkpoint without them loads there with random input
  // embeddings (missing keys). 5's save_pretrained writes them, as precis does under 5; 4.44
  // loads them as the aliases they are.
  const bool embed_aliases = hf_semantics() == HfSemantics::kV5 &&
                             config.value("model_type", "") == "bart" &&
                             !config.value("tie_word_embeddings", true);
  walk([&](const std::string& name, Tensor& slot, Shape, ParamRole) {
    tensors.push_back({name, slot});
    if (embed_aliases && name == "model.shared.weight") {
      tensors.push_back({"model.encoder.embed_tokens.weight", slot});
      tensors.push_back({"model.decoder.embed_tokens.weight", slot});
    }
  });
  write_checkpoint(dir, tensors, max_shard_bytes);
}

std::vector<std::string> shared_embedding_candidates(const std::string& name,
                                                     const std::string& prefix, bool tied_lm_head) {
  std::vector<std::string> names{name};
  if (name == prefix + "shared.weight") {
    names.push_back(prefix + "encoder.embed_tokens.weight");
    names.push_back(prefix + "decoder.embed_tokens.weight");
    if (tied_lm_head) names.push_back("lm_head.weight");
  }
  return names;
}

bool is_shared_embedding_alias(const std::string& name) {
  return name.find("embed_tokens.weight") != std::string::npos || name == "lm_head.weight";
}

}  // namespace precis
