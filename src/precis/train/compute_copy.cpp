#include "precis/train/compute_copy.h"

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "precis/kernels/convert.h"
#include "precis/model/families.h"

namespace precis::train {

namespace {

// The buffers (not trainable) of a parameter struct, in visit order.
template <class Config>
std::vector<Tensor*> buffers_of(const Config& config, ParamsOf<Config>& p) {
  std::vector<Tensor*> out;
  visit_parameters(config, p, [&](const std::string&, Tensor& t, Shape, ParamRole role) {
    if (role == ParamRole::Buffer) out.push_back(&t);
  });
  return out;
}

}  // namespace

template <class Config>
ComputeCopy<Config>::ComputeCopy(const Config& config, Params& master, DType dtype)
    : config_(config) {
  check(dtype == DType::BF16 || dtype == DType::F16,
        "compute copy: 16-bit weights are BF16 or F16, not " + dtype_name(dtype));
  const dist::FlatLayout layout = flat_layout(config, master);
  const Device device = flat_tensor(config, master).device;
  size_t buffer_bytes = 0;
  for (Tensor* b : buffers_of(config, master)) buffer_bytes += b->numel() * 2 + Arena::kAlignment;
  arena_ = Arena(size_t(layout.size) * 2 + Arena::kAlignment + buffer_bytes, device);
  flat_ = arena_.zeros(Shape{layout.size}, dtype);
  size_t next = 0;
  visit_parameters(config_, params_, [&](const std::string& name, Tensor& slot, Shape shape,
                                         ParamRole role) {
    if (role == ParamRole::Buffer) {
      slot = arena_.zeros(shape, dtype);
      return;
    }
    const dist::FlatTensor& at = layout.tensors[next++];
    check(at.name == name && at.numel == shape.numel(), "compute copy: " + name + " out of place");
    slot = flat_.slice(at.offset, at.offset + at.numel).view(shape);
  });
  if (config_.tie_word_embeddings) params_.lm_head = params_.shared;
}

template <class Config>
void ComputeCopy<Config>::refresh(Params& master) {
  convert(flat_tensor(config_, master), flat_);
  refresh_buffers(master);
}

template <class Config>
void ComputeCopy<Config>::refresh_buffers(Params& master) {
  std::vector<Tensor*> from = buffers_of(config_, master), to = buffers_of(config_, params_);
  for (size_t i = 0; i < from.size(); ++i) convert(*from[i], *to[i]);
}

namespace {

// A weight the model multiplies by: a trainable matrix that is not a lookup table.
bool multiplied(const std::string& name, Shape shape, ParamRole role) {
  if (role != ParamRole::Trainable || shape.rank != 2) return false;
  for (const char* table : {"shared.weight", "embed_tokens.weight", "embed_positions.weight",
                            "relative_attention_bias.weight"})
    if (name.ends_with(table)) return false;
  return true;
}

}  // namespace

template <class Config>
typename ComputeCopy<Config>::Params ComputeCopy<Config>::mixed(const Params& master) {
  std::vector<Tensor*> copies;
  visit_parameters(config_, params_, [&](const std::string&, Tensor& t, Shape, ParamRole) {
    copies.push_back(&t);
  });
  // The linear layers' biases too, as autocast casts F.linear's bias: "<layer>.bias" beside a
  // multiplied "<layer>.weight" (a LayerNorm's is not).
  std::set<std::string> layers;
  visit_parameters(config_, params_,
                   [&](const std::string& name, Tensor&, Shape shape, ParamRole role) {
                     if (multiplied(name, shape, role) && name.ends_with(".weight"))
                       layers.insert(name.substr(0, name.size() - std::strlen(".weight")));
                   });
  const auto linear_bias = [&](const std::string& name, ParamRole role) {
    return role != ParamRole::Buffer && name.ends_with(".bias") &&
           layers.contains(name.substr(0, name.size() - std::strlen(".bias")));
  };
  Params out = master;
  size_t i = 0;
  visit_parameters(config_, out,
                   [&](const std::string& name, Tensor& t, Shape shape, ParamRole role) {
                     Tensor* copy = copies[i++];
                     if (multiplied(name, shape, role) || linear_bias(name, role)) t = *copy;
                   });
  // A tied head is not visited (it is the shared embedding): the copy's view of it.
  if (config_.tie_word_embeddings) out.lm_head = params_.lm_head;
  return out;
}

#define PRECIS_INSTANTIATE(Model, Config, family) template class ComputeCopy<Config>;
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
