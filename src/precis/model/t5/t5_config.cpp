#include "precis/model/t5/t5_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "precis/core/hf_semantics.h"
#include "precis/core/json_input.h"
#include "precis/model/common/config_fields.h"

namespace precis {

namespace {

using namespace config_limits;

// The keys that map one to one onto T5Config's fields, in reading order (Fields:
// ConfigFieldReader with Config = T5Config, or ConfigFieldWriter with const T5Config).
template <class Fields, class Config>
void t5_fields(const Fields& f, Config& c) {
  f.integer("vocab_size", c.vocab_size, 1, kMaxVocab);
  f.integer("d_model", c.d_model, 1, kMaxWidth);
  f.integer("d_kv", c.d_kv, 1, kMaxWidth);
  f.integer("d_ff", c.d_ff, 1, 16 * kMaxWidth);
  f.integer("num_layers", c.num_layers, 0, kMaxLayers);
  f.integer("num_decoder_layers", c.num_decoder_layers, 0, kMaxLayers);
  f.integer("num_heads", c.num_heads, 1, kMaxWidth);
  f.integer("relative_attention_num_buckets", c.relative_attention_num_buckets, 2, kMaxWidth);
  f.integer("relative_attention_max_distance", c.relative_attention_max_distance, 1, 1 << 24);
  f.real("dropout_rate", c.dropout_rate, 0.0, 1.0);
  f.real("layer_norm_epsilon", c.layer_norm_epsilon, 0.0, 1.0);
  f.real("initializer_factor", c.initializer_factor, 0.0, 1e3);
  pretrained_token_fields(f, c);
  f.text("feed_forward_proj", c.feed_forward_proj);
}

// HF's T5Config.__init__: "[gated-]ACT"; "gated-gelu" means the tanh GELU (gelu_new).
void parse_feed_forward_proj(T5Config& c, const std::string& source) {
  const std::string& f = c.feed_forward_proj;
  const std::string bad = source + ": feed_forward_proj \"" + f +
                          "\" is not a valid activation; expected \"ACT\" or \"gated-ACT\", "
                          "e.g. \"relu\" or \"gated-gelu\"";
  std::string act = f;
  c.gated = false;
  if (auto dash = f.find('-'); dash != std::string::npos) {
    check(f.substr(0, dash) == "gated" && f.find('-', dash + 1) == std::string::npos, bad);
    c.gated = true;
    act = f.substr(dash + 1);
  }
  if (f == "gated-gelu") act = "gelu_new";
  try {
    c.dense_act = activation_from_name(act);
  } catch (const Error&) {
    throw Error(bad);
  }
}

}  // namespace

float T5Config::lm_head_scale() const {
  return tie_word_embeddings ? float(std::pow(double(d_model), -0.5)) : 1.0f;
}

T5Config T5Config::from_json(const nlohmann::json& j, const std::string& source) {
  expect_model_type(j, source, "t5", "the T5 loader");
  T5Config c;
  ConfigFieldReader r{j, source};
  t5_fields(r, c);
  // Defaults that follow other fields: the decoder is as deep as the encoder, and T5 starts
  // decoding from pad.
  if (!r.present("num_decoder_layers")) c.num_decoder_layers = c.num_layers;
  if (!r.present("decoder_start_token_id")) c.decoder_start_token_id = c.pad_token_id;
  parse_feed_forward_proj(c, source);
  check(c.inner_dim() <= 16 * kMaxWidth, source + ": num_heads * d_kv is too large");
  // Buckets: the bidirectional half must leave room for exact and logarithmic ranges.
  check(c.relative_attention_num_buckets >= 4,
        source + ": relative_attention_num_buckets must be at least 4");
  check(c.pad_token_id < c.vocab_size && c.eos_token_id < c.vocab_size &&
            c.decoder_start_token_id < c.vocab_size,
        source + ": pad_token_id/eos_token_id/decoder_start_token_id must be below vocab_size");
  return c;
}

T5Config T5Config::from_file(const std::filesystem::path& path) {
  return from_json(read_model_config(path), path.string());
}

nlohmann::json T5Config::to_json() const {
  nlohmann::json j = encoder_decoder_config_json("t5", "T5ForConditionalGeneration");
  t5_fields(ConfigFieldWriter{j}, *this);
  j["dense_act_fn"] = activation_name(dense_act);
  j["is_gated_act"] = gated;
  return j;
}

SpecialTokens special_tokens(const T5Config& c) {
  SpecialTokens t = pretrained_special_tokens(c);
  t.bos_token_id = c.pad_token_id;  // T5 has no BOS; nothing forces one
  return t;
}

nlohmann::json default_generation_config(const T5Config& c) {
  return {{"_from_model_config", true},
          {"decoder_start_token_id", c.decoder_start_token_id},
          {"eos_token_id", c.eos_token_id},
          {"pad_token_id", c.pad_token_id},
          {"transformers_version", std::string(transformers_version_of(hf_semantics()))}};
}

}  // namespace precis
