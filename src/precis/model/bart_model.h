// A BART model in memory: its config and its parameters in one arena, loaded from and
// saved to a Hugging Face checkpoint directory (config.json + model.safetensors, or shards
// with model.safetensors.index.json).
#pragma once

#include <filesystem>

#include "precis/model/bart_params.h"

namespace precis {

struct BartModel {
  BartConfig config;
  Arena arena;  // owns every parameter and buffer
  BartParams params;

  // Reads config.json and the weights with HF's rules: any alias of the tied embedding
  // (model.shared / *.embed_tokens / a tied lm_head), checkpoints of a bare BartModel (no
  // "model." prefix), missing final_logits_bias as zeros, F16/BF16 converted to F32.
  // Missing tensors and wrong shapes are errors naming the directory and the tensor.
  static BartModel load(const std::filesystem::path& dir);

  // Fresh parameters for `config` (zeros); see initialize_bart for HF's initialisation.
  static BartModel allocate(const BartConfig& config);

  // Writes config.json and model.safetensors (sharded above max_shard_bytes) as
  // save_pretrained does: the tied group only as model.shared.weight.
  void save(const std::filesystem::path& dir, uint64_t max_shard_bytes = 5'000'000'000) const;
};

}  // namespace precis
