#include "precis/model/bart/bart_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "precis/core/error.h"
#include "precis/core/json_input.h"
#include "precis/model/common/config_field_reader.h"

namespace precis {

namespace {

// Sizes beyond these are refused before anything is allocated (a corrupt or hostile config).
constexpr int64_t kMaxWidth = 1 << 16, kMaxLayers = 1024, kMaxVocab = 1 << 24, kMaxPositions = 1 << 20;

using Reader = ConfigFieldReader;

}  // namespace

float BartConfig::embed_scale() const {
  return scale_embedding ? float(std::sqrt(double(d_model))) : 1.0f;
}

BartConfig BartConfig::from_json(const nlohmann::json& j, const std::string& source) {
  BartConfig c;
  c.model_type = expect_model_type(j, source, "bart", "this loader");
  Reader r{j, source};
  r.integer("vocab_size", c.vocab_size, 1, kMaxVocab);
  r.integer("d_model", c.d_model, 1, kMaxWidth);
  r.integer("encoder_layers", c.encoder_layers, 0, kMaxLayers);
  r.integer("decoder_layers", c.decoder_layers, 0, kMaxLayers);
  r.integer("encoder_attention_heads", c.encoder_attention_heads, 1, kMaxWidth);
  r.integer("decoder_attention_heads", c.decoder_attention_heads, 1, kMaxWidth);
  r.integer("encoder_ffn_dim", c.encoder_ffn_dim, 1, 16 * kMaxWidth);
  r.integer("decoder_ffn_dim", c.decoder_ffn_dim, 1, 16 * kMaxWidth);
  r.integer("max_position_embeddings", c.max_position_embeddings, 1, kMaxPositions);
  r.real("dropout", c.dropout, 0.0, 1.0);
  r.real("attention_dropout", c.attention_dropout, 0.0, 1.0);
  r.real("activation_dropout", c.activation_dropout, 0.0, 1.0);
  r.real("init_std", c.init_std, 0.0, 1e3);
  r.real("encoder_layerdrop", c.encoder_layerdrop, 0.0, 1.0);
  r.real("decoder_layerdrop", c.decoder_layerdrop, 0.0, 1.0);
  r.boolean("scale_embedding", c.scale_embedding);
  r.boolean("tie_word_embeddings", c.tie_word_embeddings);
  r.token("pad_token_id", c.pad_token_id);
  r.token("bos_token_id", c.bos_token_id);
  r.token("eos_token_id", c.eos_token_id);
  r.token("decoder_start_token_id", c.decoder_start_token_id);
  r.optional_token("forced_eos_token_id", c.forced_eos_token_id);
  r.optional_token("forced_bos_token_id", c.forced_bos_token_id);
  // Legacy key of old BART configs: force_bos_token_to_be_generated = true means forced BOS.
  bool force_bos = false;
  r.boolean("force_bos_token_to_be_generated", force_bos);
  if (!c.forced_bos_token_id && force_bos) c.forced_bos_token_id = c.bos_token_id;
  if (auto a = j.find("activation_function"); a != j.end()) {
    check(a->is_string(), r.where("activation_function") + " must be a string");
    try {
      c.activation = activation_from_name(a->get<std::string>());
    } catch (const Error& e) {
      throw Error(source + ": " + e.what());
    }
  }
  check(c.d_model % c.encoder_attention_heads == 0,
        source + ": d_model " + std::to_string(c.d_model) +
            " is not divisible by encoder_attention_heads " + std::to_string(c.encoder_attention_heads));
  check(c.d_model % c.decoder_attention_heads == 0,
        source + ": d_model " + std::to_string(c.d_model) +
            " is not divisible by decoder_attention_heads " + std::to_string(c.decoder_attention_heads));
  check(c.pad_token_id < c.vocab_size && c.decoder_start_token_id < c.vocab_size,
        source + ": pad_token_id/decoder_start_token_id must be below vocab_size");
  return c;
}

BartConfig BartConfig::from_file(const std::filesystem::path& path) {
  return from_json(read_model_config(path), path.string());
}

nlohmann::json BartConfig::to_json() const {
  nlohmann::json j;
  j["model_type"] = model_type;
  j["architectures"] = {"BartForConditionalGeneration"};
  j["vocab_size"] = vocab_size;
  j["d_model"] = d_model;
  j["encoder_layers"] = encoder_layers;
  j["decoder_layers"] = decoder_layers;
  j["encoder_attention_heads"] = encoder_attention_heads;
  j["decoder_attention_heads"] = decoder_attention_heads;
  j["encoder_ffn_dim"] = encoder_ffn_dim;
  j["decoder_ffn_dim"] = decoder_ffn_dim;
  j["activation_function"] = activation_name(activation);
  j["dropout"] = dropout;
  j["attention_dropout"] = attention_dropout;
  j["activation_dropout"] = activation_dropout;
  j["max_position_embeddings"] = max_position_embeddings;
  j["scale_embedding"] = scale_embedding;
  j["init_std"] = init_std;
  j["encoder_layerdrop"] = encoder_layerdrop;
  j["decoder_layerdrop"] = decoder_layerdrop;
  j["pad_token_id"] = pad_token_id;
  j["bos_token_id"] = bos_token_id;
  j["eos_token_id"] = eos_token_id;
  j["decoder_start_token_id"] = decoder_start_token_id;
  j["forced_eos_token_id"] = forced_eos_token_id ? nlohmann::json(*forced_eos_token_id) : nullptr;
  if (forced_bos_token_id) j["forced_bos_token_id"] = *forced_bos_token_id;
  j["tie_word_embeddings"] = tie_word_embeddings;
  write_encoder_decoder_keys(j);
  return j;  // nlohmann::json objects keep keys sorted
}

SpecialTokens special_tokens(const BartConfig& c) {
  SpecialTokens t;
  t.vocab_size = c.vocab_size;
  t.pad_token_id = c.pad_token_id;
  t.bos_token_id = c.bos_token_id;
  t.eos_token_id = c.eos_token_id;
  t.decoder_start_token_id = c.decoder_start_token_id;
  t.forced_bos_token_id = c.forced_bos_token_id;
  t.forced_eos_token_id = c.forced_eos_token_id;
  t.max_positions = c.max_position_embeddings;
  return t;
}

}  // namespace precis
