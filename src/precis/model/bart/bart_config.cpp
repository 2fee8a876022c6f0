#include "precis/model/bart/bart_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "precis/core/error.h"
#include "precis/core/hf_semantics.h"
#include "precis/core/json_input.h"
#include "precis/model/common/config_fields.h"

namespace precis {

namespace {

using namespace config_limits;
constexpr int64_t kMaxPositions = 1 << 20;

// The keys that map one to one onto BartConfig's fields, in reading order (Fields:
// ConfigFieldReader with Config = BartConfig, or ConfigFieldWriter with const BartConfig).
template <class Fields, class Config>
void bart_fields(const Fields& f, Config& c) {
  f.integer("vocab_size", c.vocab_size, 1, kMaxVocab);
  f.integer("d_model", c.d_model, 1, kMaxWidth);
  f.integer("encoder_layers", c.encoder_layers, 0, kMaxLayers);
  f.integer("decoder_layers", c.decoder_layers, 0, kMaxLayers);
  f.integer("encoder_attention_heads", c.encoder_attention_heads, 1, kMaxWidth);
  f.integer("decoder_attention_heads", c.decoder_attention_heads, 1, kMaxWidth);
  f.integer("encoder_ffn_dim", c.encoder_ffn_dim, 1, 16 * kMaxWidth);
  f.integer("decoder_ffn_dim", c.decoder_ffn_dim, 1, 16 * kMaxWidth);
  f.integer("max_position_embeddings", c.max_position_embeddings, 1, kMaxPositions);
  f.real("dropout", c.dropout, 0.0, 1.0);
  f.real("attention_dropout", c.attention_dropout, 0.0, 1.0);
  f.real("activation_dropout", c.activation_dropout, 0.0, 1.0);
  f.real("init_std", c.init_std, 0.0, 1e3);
  f.real("encoder_layerdrop", c.encoder_layerdrop, 0.0, 1.0);
  f.real("decoder_layerdrop", c.decoder_layerdrop, 0.0, 1.0);
  f.boolean("scale_embedding", c.scale_embedding);
  pretrained_token_fields(f, c);
  f.optional_token("forced_eos_token_id", c.forced_eos_token_id);
}

}  // namespace

float BartConfig::embed_scale() const {
  return scale_embedding ? float(std::sqrt(double(d_model))) : 1.0f;
}

BartConfig BartConfig::from_json(const nlohmann::json& j, const std::string& source) {
  BartConfig c;
  c.model_type = expect_model_type(j, source, "bart", "this loader");
  ConfigFieldReader r{j, source};
  bart_fields(r, c);
  // Not in bart_fields: to_json writes it only when set (an unset forced_eos_token_id is
  // written as null).
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
  nlohmann::json j = encoder_decoder_config_json(model_type, "BartForConditionalGeneration");
  bart_fields(ConfigFieldWriter{j}, *this);
  j["activation_function"] = activation_name(activation);
  if (forced_bos_token_id) j["forced_bos_token_id"] = *forced_bos_token_id;
  return j;  // nlohmann::json objects keep keys sorted
}

SpecialTokens special_tokens(const BartConfig& c) {
  SpecialTokens t = pretrained_special_tokens(c);
  t.bos_token_id = c.bos_token_id;
  t.forced_bos_token_id = c.forced_bos_token_id;
  t.forced_eos_token_id = c.forced_eos_token_id;
  t.max_positions = c.max_position_embeddings;
  return t;
}

nlohmann::json default_generation_config(const BartConfig& c) {
  nlohmann::json j = {
      {"_from_model_config", true},
      {"bos_token_id", c.bos_token_id},
      {"decoder_start_token_id", c.decoder_start_token_id},
      {"eos_token_id", c.eos_token_id},
      {"pad_token_id", c.pad_token_id},
      {"transformers_version", std::string(transformers_version_of(hf_semantics()))}};
  if (c.forced_eos_token_id) j["forced_eos_token_id"] = *c.forced_eos_token_id;
  if (c.forced_bos_token_id) j["forced_bos_token_id"] = *c.forced_bos_token_id;
  return j;
}

}  // namespace precis
