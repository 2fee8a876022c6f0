// BartConfig: the config.json fields that change BART's math (transformers 4.44
// models/bart/configuration_bart.py, BartConfig). Legacy keys (normalize_before,
// add_final_layer_norm, static_position_embeddings, ...) are accepted and ignored, exactly as
// the modern transformers class does; unknown model types are refused.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "precis/kernels/activation.h"
#include "precis/model/common/special_tokens.h"

namespace precis {

struct BartConfig {
  std::string model_type = "bart";
  int64_t vocab_size = 50265;
  int64_t d_model = 1024;
  int64_t encoder_layers = 12, decoder_layers = 12;
  int64_t encoder_attention_heads = 16, decoder_attention_heads = 16;
  int64_t encoder_ffn_dim = 4096, decoder_ffn_dim = 4096;
  Activation activation = Activation::GeluExact;
  double dropout = 0.1, attention_dropout = 0.0, activation_dropout = 0.0;
  int64_t max_position_embeddings = 1024;
  bool scale_embedding = false;
  double init_std = 0.02;
  double encoder_layerdrop = 0.0, decoder_layerdrop = 0.0;
  int32_t pad_token_id = 1, bos_token_id = 0, eos_token_id = 2, decoder_start_token_id = 2;
  std::optional<int32_t> forced_bos_token_id, forced_eos_token_id = 2;
  bool tie_word_embeddings = true;
  static constexpr float kLayerNormEps = 1e-5f;  // BART has no epsilon field: nn.LayerNorm's default
  static constexpr int64_t kPositionOffset = 2;  // learned positions start at row 2

  int64_t encoder_head_dim() const { return d_model / encoder_attention_heads; }
  int64_t decoder_head_dim() const { return d_model / decoder_attention_heads; }
  float embed_scale() const;

  // `source` names the file in error messages.
  static BartConfig from_json(const nlohmann::json& j, const std::string& source);
  static BartConfig from_file(const std::filesystem::path& path);
  // The config.json transformers writes (sorted keys, every field), so from_pretrained loads it.
  nlohmann::json to_json() const;
};

// Its special tokens as generation reads them (special_tokens.h).
SpecialTokens special_tokens(const BartConfig& config);

// The generation_config.json save_pretrained writes when the model came with none
// (GenerationConfig.from_model_config: the config's token ids, forced ones included).
nlohmann::json default_generation_config(const BartConfig& config);

}  // namespace precis
