#include "precis/model/bart/bart_init.h"

#include <cmath>
#include <filesystem>

#include "precis/kernels/copy.h"
#include "precis/kernels/fill.h"
#include "precis/model/common/config_fields.h"

namespace precis {

namespace {

// The initialisation's first RNG stream; named for the family, as a unity build may put
// both families' init files in one translation unit.
constexpr uint64_t kBartInitStream = 0x1417'0000'0000'0000ull;

}  // namespace

std::optional<BartConfig> bart_preset(const std::string& name) {
  BartConfig c;
  auto shape = [&](int64_t d, int64_t layers, int64_t heads, int64_t ffn, int64_t positions) {
    c.d_model = d;
    c.encoder_layers = c.decoder_layers = layers;
    c.encoder_attention_heads = c.decoder_attention_heads = heads;
    c.encoder_ffn_dim = c.decoder_ffn_dim = ffn;
    c.max_position_embeddings = positions;
    return c;
  };
  if (name == "bart-tiny") return shape(128, 2, 4, 512, 512);
  if (name == "bart-small") return shape(256, 3, 4, 1024, 1024);
  if (name == "bart-base") return shape(768, 6, 12, 3072, 1024);
  if (name == "bart-large") return shape(1024, 12, 16, 4096, 1024);
  return std::nullopt;
}

std::string bart_preset_names() { return "bart-tiny, bart-small, bart-base, bart-large"; }

BartConfig bart_config_from(const std::string& name_or_path) {
  if (auto preset = bart_preset(name_or_path)) return *preset;
  return BartConfig::from_file(config_name_file(name_or_path, bart_preset_names()));
}

void initialize_bart(BartModel& m, uint64_t seed) {
  uint64_t stream = kBartInitStream;
  visit_parameters(m.config, m.params, [&](const std::string& name, Tensor& t, Shape, ParamRole) {
    ++stream;
    if (name == "final_logits_bias" || name.ends_with(".bias")) {
      zero(t);
    } else if (name.find("layer_norm") != std::string::npos ||
               name.find("layernorm") != std::string::npos) {
      fill(t, 1.0f);
    } else {
      fill_normal(t, m.config.init_std, seed, stream);
    }
  });
  // nn.Embedding(padding_idx): the padding row starts at zero.
  zero(m.params.shared.slice(m.config.pad_token_id, m.config.pad_token_id + 1));
}

BartModel resize_token_embeddings(const BartModel& old, int64_t vocab_size, uint64_t seed) {
  BartConfig c = old.config;
  c.vocab_size = vocab_size;
  BartModel m = BartModel::allocate(c);
  const int64_t keep = std::min(old.config.vocab_size, vocab_size), d = c.d_model;
  BartParams from = old.params;
  std::vector<Tensor*> src;
  visit_parameters(old.config, from, [&](const std::string&, Tensor& t, Shape, ParamRole) { src.push_back(&t); });
  size_t i = 0;
  uint64_t stream = kBartInitStream + 0x100000;
  visit_parameters(c, m.params, [&](const std::string& name, Tensor& t, Shape, ParamRole) {
    const Tensor& s = *src[i++];
    if (t.shape == s.shape) return copy(s, t);
    // A vocabulary-sized tensor: rows [0, keep) copied, the rest new.
    const int64_t row = name == "final_logits_bias" ? 1 : d;
    const Tensor all = t.view({t.numel()});
    copy(s.view({s.numel()}).slice(0, keep * row), all.slice(0, keep * row));
    if (name == "final_logits_bias")
      zero(all.slice(keep, vocab_size));
    else
      fill_normal(t, c.init_std, seed, ++stream, keep * row);
  });
  if (c.tie_word_embeddings) m.params.lm_head = m.params.shared;
  return m;
}

}  // namespace precis
