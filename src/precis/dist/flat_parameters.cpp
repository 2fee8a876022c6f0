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
    layout.tensors.push_back({name, offset, t.numel(), role, backward_stage(config, params, &t)});
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

}  // namespace precis::dist
