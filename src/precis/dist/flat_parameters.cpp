#include "precis/dist/flat_parameters.h"

#include <algorithm>

#include "precis/core/error.h"

namespace precis::dist {

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
    check(offset >= end, "flat parameters: " + name + " is not after the previous tensor (parameters not laid out by allocate_parameters?)");
    f(name, t, role, offset);
    end = offset + t.numel();
  });
  return end;
}

}  // namespace

template <class Config>
FlatLayout flat_layout(const Config& config, ParamsOf<Config>& params) {
  FlatLayout layout;
  layout.size = walk_flat(config, params, [&](const std::string& name, Tensor& t, ParamRole role, int64_t offset) {
    layout.tensors.push_back({name, offset, t.numel(), role, backward_stage(config, params, &t)});
  });
  return layout;
}

// Called several times per optimizer step: one walk, no names or stages kept.
template <class Config>
Tensor flat_tensor(const Config& config, ParamsOf<Config>& params) {
  Tensor flat;
  const int64_t size = walk_flat(config, params, [&](const std::string&, Tensor& t, ParamRole, int64_t) {
    if (!flat.ptr) flat = t;  // the first: where the range starts
  });
  flat.shape = Shape{size};
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
