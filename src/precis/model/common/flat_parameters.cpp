#include "precis/model/common/flat_parameters.h"

#include "precis/core/error.h"
#include "precis/model/families.h"

namespace precis {

namespace {

// Calls f(name, tensor, role, offset) for each trainable tensor in visit order, offset in
// elements from the first tensor's start, checking that they ascend; returns the range's size.
template <class Config, class F>
int64_t walk_flat(const Config& config, ParamsOf<Config>& params, F f) {
  const float* base = nullptr;
  int64_t end = 0;
  visit_parameters(config, params, [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role == ParamRole::Buffer) return;
    if (!base) base = t.f32();
    int64_t offset = t.f32() - base;
    check(
        offset >= end,
        "flat parameters: " + name +
            " is not after the previous tensor (parameters not laid out by allocate_parameters?)");
    f(name, t, role, offset);
    end = offset + t.numel();
  });
  return end;
}

}  // namespace

template <class Config>
dist::FlatLayout flat_layout(const Config& config, ParamsOf<Config>& params) {
  dist::FlatLayout layout;
  layout.size = walk_flat(
      config, params, [&](const std::string& name, Tensor& t, ParamRole role, int64_t offset) {
        layout.tensors.push_back({name, offset, t.numel(), role == ParamRole::Trainable,
                                  backward_stage(config, params, &t)});
      });
  return layout;
}

// Called several times per optimizer step: one walk, no names or stages kept.
template <class Config>
Tensor flat_tensor(const Config& config, ParamsOf<Config>& params) {
  Tensor flat;
  const int64_t size =
      walk_flat(config, params, [&](const std::string&, Tensor& t, ParamRole, int64_t) {
        if (!flat.ptr) flat = t;  // the first: where the range starts
      });
  flat.shape = Shape{size};
  return flat;
}

#define PRECIS_INSTANTIATE(Model, Config, family)                                  \
  template dist::FlatLayout flat_layout<Config>(const Config&, ParamsOf<Config>&); \
  template Tensor flat_tensor<Config>(const Config&, ParamsOf<Config>&);
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis
