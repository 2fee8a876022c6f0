// A model's parameters to and from a Hugging Face model directory, by state-dict name, as
// from_pretrained / save_pretrained move them; written once for BART and T5. What differs by
// family (the aliases a tensor may be stored under, the leftovers HF does not warn about)
// comes in a PretrainedNaming.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "precis/model/common/parameters.h"

namespace precis {

// Visits every distinct parameter of one model: visit_parameters(config, params, visit).
using ParameterWalk = std::function<void(const ParamVisitor& visit)>;

struct PretrainedNaming {
  const char* family;  // "BART", "T5": names the model in the unused-tensors warning
  // The names under which a checkpoint may hold parameter `name`, preferred first.
  std::function<std::vector<std::string>(const std::string& name)> candidates;
  // Tensors a checkpoint may hold that the model does not load, and HF does not warn about.
  std::function<bool(const std::string& name)> expected_leftover;
};

// Both families tie one embedding (`<prefix>shared.weight`) to the encoder's and decoder's
// embed_tokens and, when tied, the LM head; a checkpoint may hold it under any of them.
// `name` first, then its aliases when it is the shared embedding.
std::vector<std::string> shared_embedding_candidates(const std::string& name,
                                                     const std::string& prefix, bool tied_lm_head);

// An alias of the shared embedding (embed_tokens, lm_head) left over after loading.
bool is_shared_embedding_alias(const std::string& name);

// Refuses, before anything is allocated, a config.json that describes more parameters than
// the weights files of `dir` can hold (2 bytes each at the least): a corrupt or hostile config
// (d_model 10^9, thousands of layers) is an error naming both sizes, not an allocation of
// gigabytes. Directories without *.safetensors files are left to the loader's own error.
void check_config_fits_weights(const std::filesystem::path& dir, int64_t parameter_count);

// Fills every parameter `walk` visits from the weights of `dir` (checkpoint_files.h: one
// file or shards; F16/BF16 converted to F32). A missing buffer keeps its zeros, as HF; any
// other missing tensor, or a wrong shape, is an error naming the directory and the tensor.
// Tensors neither used nor expected leftovers are reported once, as HF's "weights not used"
// warning.
void load_pretrained_weights(const std::filesystem::path& dir, const ParameterWalk& walk,
                             const PretrainedNaming& naming);

// Writes config.json and the weights (sharded above max_shard_bytes) of the parameters `walk`
// visits, in its order, as save_pretrained does.
void save_pretrained(const std::filesystem::path& dir, const nlohmann::json& config,
                     const ParameterWalk& walk, uint64_t max_shard_bytes);

}  // namespace precis
