// T5Config: the config.json fields that change the math of T5, T5 v1.1 and FLAN-T5
// (transformers 4.44 models/t5/configuration_t5.py, T5Config.__init__). feed_forward_proj is
// "[gated-]ACT": "relu" (v1.0), "gated-gelu" (v1.1/FLAN, which HF maps to the tanh GELU
// "gelu_new").
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "precis/kernels/activation.h"
#include "precis/kernels/relative_position.h"
#include "precis/model/common/special_tokens.h"

namespace precis {

struct T5Config {
  int64_t vocab_size = 32128;
  int64_t d_model = 512;
  int64_t d_kv = 64;  // per head; the attention's inner width is num_heads * d_kv
  int64_t d_ff = 2048;
  int64_t num_layers = 6;          // encoder blocks
  int64_t num_decoder_layers = 6;  // config.json's null means num_layers
  int64_t num_heads = 8;
  int64_t relative_attention_num_buckets = 32;
  int64_t relative_attention_max_distance = 128;
  double dropout_rate = 0.1;  // everywhere, attention probabilities included
  double layer_norm_epsilon = 1e-6;
  double initializer_factor = 1.0;
  std::string feed_forward_proj = "relu";
  Activation dense_act = Activation::Relu;
  bool gated = false;
  bool tie_word_embeddings = true;
  int32_t pad_token_id = 0, eos_token_id = 1, decoder_start_token_id = 0;

  int64_t inner_dim() const { return num_heads * d_kv; }
  // v1.0 rescales the decoder output by d_model^-0.5 before the tied LM head.
  float lm_head_scale() const;
  RelativePositionBuckets buckets(bool decoder) const {
    return {!decoder, relative_attention_num_buckets, relative_attention_max_distance};
  }

  // `source` names the file in error messages.
  static T5Config from_json(const nlohmann::json& j, const std::string& source);
  static T5Config from_file(const std::filesystem::path& path);
  // The config.json transformers writes for T5ForConditionalGeneration.
  nlohmann::json to_json() const;
};

// Its special tokens as generation reads them (special_tokens.h): T5 has no BOS (pad stands in,
// nothing forces one) and no limit of positions.
SpecialTokens special_tokens(const T5Config& config);

// The generation_config.json save_pretrained writes when the model came with none
// (GenerationConfig.from_model_config: the config's token ids; no BOS).
nlohmann::json default_generation_config(const T5Config& config);

}  // namespace precis
