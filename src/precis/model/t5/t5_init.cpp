#include "precis/model/t5/t5_init.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "precis/core/error.h"
#include "precis/kernels/fill.h"
#include "precis/model/common/config_fields.h"

namespace precis {

namespace {

// The initialisation's first RNG stream; named for the family, as a unity build may put
// both families' init files in one translation unit.
constexpr uint64_t kT5InitStream = 0x7505'0000'0000'0000ull;

}  // namespace

std::optional<T5Config> t5_preset(const std::string& name) {
  auto shape = [](int64_t d, int64_t d_ff, int64_t layers, int64_t heads, const char* ffn) {
    nlohmann::json j = {{"model_type", "t5"}, {"d_model", d},         {"d_kv", 64},
                        {"d_ff", d_ff},       {"num_layers", layers}, {"num_heads", heads},
                        {"feed_forward_proj", ffn},
                        {"tie_word_embeddings", std::string(ffn) == "relu"}};
    return T5Config::from_json(j, "preset");
  };
  if (name == "t5-tiny") {
    T5Config c = shape(128, 512, 2, 4, "relu");
    c.d_kv = 32;
    return c;
  }
  if (name == "t5-small") return shape(512, 2048, 6, 8, "relu");
  if (name == "t5-base") return shape(768, 3072, 12, 12, "relu");
  if (name == "t5-large") return shape(1024, 4096, 24, 16, "relu");
  if (name == "t5-v1_1-small" || name == "flan-t5-small") {
    T5Config c = shape(512, 1024, 8, 6, "gated-gelu");
    c.num_decoder_layers = 8;
    return c;
  }
  if (name == "t5-v1_1-base" || name == "flan-t5-base") return shape(768, 2048, 12, 12, "gated-gelu");
  return std::nullopt;
}

std::string t5_preset_names() {
  return "t5-tiny, t5-small, t5-base, t5-large, t5-v1_1-small, t5-v1_1-base, flan-t5-small, flan-t5-base";
}

T5Config t5_config_from(const std::string& name_or_path) {
  if (auto preset = t5_preset(name_or_path)) return *preset;
  return T5Config::from_file(config_name_file(name_or_path, t5_preset_names()));
}

void initialize_t5(T5Model& m, uint64_t seed) {
  const T5Config& c = m.config;
  const double f = c.initializer_factor, d = double(c.d_model);
  uint64_t stream = kT5InitStream;
  visit_parameters(m.config, m.params, [&](const std::string& name, Tensor& t, Shape, ParamRole) {
    ++stream;
    double std = 0.0;
    if (name.find("layer_norm") != std::string::npos) return fill(t, float(f));
    if (name == "shared.weight" || name == "lm_head.weight") std = f;
    else if (name.ends_with(".q.weight"))
      std = f / std::sqrt(d * double(c.d_kv));
    else if (name.ends_with(".o.weight"))
      std = f / std::sqrt(double(c.inner_dim()));
    else if (name.ends_with(".wo.weight"))
      std = f / std::sqrt(double(c.d_ff));
    else std = f / std::sqrt(d);  // k, v, relative_attention_bias, wi, wi_0, wi_1
    fill_normal(t, std, seed, stream);
  });
}

}  // namespace precis
