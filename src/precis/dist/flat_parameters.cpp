#include "precis/dist/flat_parameters.h"

#include "precis/core/error.h"

namespace precis::dist {

template <class Config>
FlatLayout flat_layout(const Config& config, ParamsOf<Config>& params) {
  FlatLayout layout;
  const float* base = nullptr;
  int64_t end = 0;
  visit_parameters(config, params, [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role == ParamRole::Buffer) return;
    if (!base) base = t.f32();
    int64_t offset = t.f32() - base;
    check(offset >= end, "flat parameters: " + name + " is not after the previous tensor (parameters not laid out by allocate_parameters?)");
    layout.tensors.push_back({name, offset, t.numel(), role});
    end = offset + t.numel();
  });
  layout.size = end;
  return layout;
}

template <class Config>
std::span<float> flat_span(const Config& config, ParamsOf<Config>& params) {
  FlatLayout layout = flat_layout(config, params);
  float* first = nullptr;
  visit_parameters(config, params, [&](const std::string&, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer && !first) first = t.f32();
  });
  return {first, size_t(layout.size)};
}

template FlatLayout flat_layout<BartConfig>(const BartConfig&, BartParams&);
template FlatLayout flat_layout<T5Config>(const T5Config&, T5Params&);
template std::span<float> flat_span<BartConfig>(const BartConfig&, BartParams&);
template std::span<float> flat_span<T5Config>(const T5Config&, T5Params&);

namespace {

bool starts_with(const std::string& name, const std::string& prefix) { return name.rfind(prefix, 0) == 0; }

// The layer index after `prefix` in a name that starts with it ("model.decoder.layers.3.fc1" -> 3).
int layer_index(const std::string& name, const std::string& prefix) {
  size_t dot = name.find('.', prefix.size());
  return std::stoi(name.substr(prefix.size(), dot - prefix.size()));
}

}  // namespace

int final_backward_stage(const BartConfig& c) { return int(c.decoder_layers + c.encoder_layers + 1); }

int backward_stage(const BartConfig& c, const std::string& name) {
  const int m = int(c.decoder_layers), n = int(c.encoder_layers);
  if (starts_with(name, "lm_head.")) return 0;
  if (starts_with(name, "model.decoder.layers.")) return m - 1 - layer_index(name, "model.decoder.layers.");
  if (starts_with(name, "model.decoder.")) return m;
  if (starts_with(name, "model.encoder.layers.")) return m + 1 + (n - 1 - layer_index(name, "model.encoder.layers."));
  return m + n + 1;  // encoder embeddings, model.shared
}

int final_backward_stage(const T5Config& c) { return int(c.num_decoder_layers + c.num_layers + 2); }

int backward_stage(const T5Config& c, const std::string& name) {
  const int m = int(c.num_decoder_layers), n = int(c.num_layers);
  if (starts_with(name, "lm_head.") || starts_with(name, "decoder.final_layer_norm.")) return 0;
  if (starts_with(name, "decoder.block.")) return 1 + (m - 1 - layer_index(name, "decoder.block."));
  if (starts_with(name, "encoder.final_layer_norm.")) return m + 1;
  if (starts_with(name, "encoder.block.")) return m + 2 + (n - 1 - layer_index(name, "encoder.block."));
  return m + n + 2;  // shared (and a tied LM head)
}

}  // namespace precis::dist
