#include "precis/dist/flat_parameters.h"

#include <algorithm>

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
Tensor flat_tensor(const Config& config, ParamsOf<Config>& params) {
  const FlatLayout layout = flat_layout(config, params);
  Tensor flat;
  visit_parameters(config, params, [&](const std::string&, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer && !flat.ptr) flat = t;  // the first: where the range starts
  });
  flat.shape = Shape{layout.size};
  return flat;
}

namespace {

// Sets bits [first, last): whole words at once, single bits at the two ends.
void set_bits(std::vector<uint32_t>& bits, int64_t first, int64_t last) {
  for (; first < last && first % 32; ++first) bits[size_t(first / 32)] |= 1u << (first % 32);
  for (; first + 32 <= last; first += 32) bits[size_t(first / 32)] = ~0u;
  for (; first < last; ++first) bits[size_t(first / 32)] |= 1u << (first % 32);
}

}  // namespace

std::vector<uint32_t> weight_decay_mask(const FlatLayout& layout, int64_t begin, int64_t end) {
  std::vector<uint32_t> bits(size_t((end - begin + 31) / 32), 0u);
  for (const FlatTensor& t : layout.tensors) {
    const int64_t first = std::max(begin, t.offset), last = std::min(end, t.offset + t.numel);
    if (t.role == ParamRole::Trainable && first < last) set_bits(bits, first - begin, last - begin);
  }
  return bits;
}

template FlatLayout flat_layout<BartConfig>(const BartConfig&, BartParams&);
template FlatLayout flat_layout<T5Config>(const T5Config&, T5Params&);
template Tensor flat_tensor<BartConfig>(const BartConfig&, BartParams&);
template Tensor flat_tensor<T5Config>(const T5Config&, T5Params&);

}  // namespace precis::dist
