// A T5 model in memory (T5ForConditionalGeneration: T5, T5 v1.1, FLAN-T5): its config and
// parameters in one arena, loaded from and saved to a Hugging Face checkpoint directory.
#pragma once

#include <filesystem>

#include "precis/model/t5_params.h"

namespace precis {

struct T5Model {
  T5Config config;
  Arena arena;  // owns every parameter
  T5Params params;

  // HF's rules: the shared embedding under any alias (shared / encoder.embed_tokens /
  // decoder.embed_tokens / a tied lm_head), F16/BF16 converted to F32, and the stray
  // decoder.block.0.layer.1.EncDecAttention.relative_attention_bias of old checkpoints ignored.
  static T5Model load(const std::filesystem::path& dir);
  static T5Model allocate(const T5Config& config);  // zeros
  // config.json + model.safetensors as save_pretrained: the tied group only as shared.weight.
  void save(const std::filesystem::path& dir, uint64_t max_shard_bytes = 5'000'000'000) const;
};

}  // namespace precis
