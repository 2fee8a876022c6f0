#include "precis/train/optimizer.h"

#include <cmath>

#include "precis/io/safetensors.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/fill.h"
#include "precis/kernels/grad_norm.h"
#include "precis/kernels/optimizer.h"
#include "precis/kernels/optimizer_math.h"
#include "precis/model/common/flat_parameters.h"
#include "precis/model/families.h"

namespace precis::train {

namespace {

// The flat buffer's weight-decay bits, where the moments live (a copy from the host).
Tensor upload_decay_mask(const dist::FlatLayout& layout, Arena& arena) {
  std::vector<uint32_t> bits = dist::weight_decay_mask(layout, 0, layout.size);
  Tensor mask = arena.alloc(Shape{int64_t(bits.size())}, DType::I32);
  copy(Tensor{bits.data(), mask.shape, DType::I32, Device::cpu()}, mask);
  return mask;
}

// Bytes of the mask's allocation: one bit per element of the flat range, in words.
size_t decay_mask_bytes(int64_t flat_size) {
  return size_t((flat_size + 31) / 32) * 4 + Arena::kAlignment;
}

}  // namespace

template <class Config>
AdamW<Config>::AdamW(const Config& config, const AdamWSettings& settings)
    : config_(config),
      settings_(settings),
      arena_(2 * parameter_bytes(config) + decay_mask_bytes(parameter_bytes(config) / 4) +
             Arena::kAlignment) {
  allocate_parameters(config_, exp_avg_, arena_);
  allocate_parameters(config_, exp_avg_sq_, arena_);
  decay_mask_ = upload_decay_mask(flat_layout(config_, exp_avg_), arena_);
  norm_squared_ = arena_.zeros(Shape{1}, DType::F64);
}

// One fused update over the flat buffers: the parameters, gradients and moments share one
// layout (allocate_parameters), and the mask says which elements decay.
template <class Config>
void AdamW<Config>::step(Params& params, Params& grads, double lr, const GradientRead& read) {
  ++step_;
  adamw_update_masked(flat_tensor(config_, params), flat_tensor(config_, grads),
                      flat_tensor(config_, exp_avg_), flat_tensor(config_, exp_avg_sq_),
                      decay_mask_, lr, settings_.beta1, settings_.beta2, settings_.epsilon,
                      settings_.weight_decay, step_, read);
}

template <class Config>
void AdamW<Config>::clipped_step(Params& params, Params& grads, double lr, double max_norm,
                                 bool skip_if_not_finite, const Tensor& norm_squared,
                                 const Tensor& compute_copy) {
  sum_of_squares_into(flat_tensor(config_, grads), norm_squared);
  step(params, grads, lr,
       {.zero_after = true, .norm_squared = norm_squared, .max_norm = max_norm,
        .skip_if_not_finite = skip_if_not_finite, .compute_copy = compute_copy});
  zero_buffer_grads(config_, grads);
}

template <class Config>
double AdamW<Config>::clipped_step(Params& params, Params& grads, double lr, double max_norm,
                                   bool skip_if_not_finite) {
  clipped_step(params, grads, lr, max_norm, skip_if_not_finite, norm_squared_);
  double squared = 0.0;
  copy(norm_squared_, Tensor{&squared, Shape{1}, DType::F64, Device::cpu()});
  const double norm = std::sqrt(squared);
  if (skip_if_not_finite && !std::isfinite(norm)) step_skipped();
  return norm;
}

template <class Config>
void AdamW<Config>::save(const std::filesystem::path& file) const {
  Params m = exp_avg_, v = exp_avg_sq_;
  save_adamw_state(file, config_, m, v, step_);
}

template <class Config>
void AdamW<Config>::load(const std::filesystem::path& file) { step_ = load_adamw_state(file, config_, exp_avg_, exp_avg_sq_); }

template <class Config>
void save_adamw_state(const std::filesystem::path& file, const Config& config, ParamsOf<Config>& m,
                      ParamsOf<Config>& v, int64_t step) {
  std::vector<NamedTensor> tensors;
  visit_parameters(config, m, [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) tensors.push_back({name + ".exp_avg", t});
  });
  visit_parameters(config, v, [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) tensors.push_back({name + ".exp_avg_sq", t});
  });
  write_safetensors(file, tensors, {{"step", std::to_string(step)}, {"optimizer", "adamw"}});
}

template <class Config>
int64_t load_adamw_state(const std::filesystem::path& file, const Config& config, ParamsOf<Config>& m,
                         ParamsOf<Config>& v) {
  SafetensorsReader reader = SafetensorsReader::open(file);
  visit_parameters(config, m, [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) reader.read(name + ".exp_avg", t);
  });
  visit_parameters(config, v, [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) reader.read(name + ".exp_avg_sq", t);
  });
  auto it = reader.metadata().find("step");
  check(it != reader.metadata().end(), file.string() + ": no \"step\" in the metadata");
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    throw Error(file.string() + ": metadata \"step\" is not a number: " + it->second);
  }
}

// One reduction over the flat gradient (its gaps are zeros).
template <class Config>
double global_grad_norm(const Config& c, ParamsOf<Config>& grads) {
  return std::sqrt(sum_of_squares(flat_tensor(c, grads)));
}

float clip_scale(double norm, double max_norm) {
  return optimizer_math::clip_coefficient(norm, max_norm);
}

template <class Config>
double clip_grad_norm(const Config& c, ParamsOf<Config>& grads, double max_norm) {
  const double norm = global_grad_norm(c, grads);
  const float scale = clip_scale(norm, max_norm);
  if (scale != 1.0f) scale_in_place(flat_tensor(c, grads), scale);
  return norm;
}

template <class Config>
void zero_buffer_grads(const Config& c, ParamsOf<Config>& grads) {
  visit_parameters(c, grads, [&](const std::string&, Tensor& g, Shape, ParamRole role) {
    if (role == ParamRole::Buffer) zero(g);
  });
}

template <class Config>
void zero_grads(const Config& c, ParamsOf<Config>& grads) {
  zero(flat_tensor(c, grads));
  zero_buffer_grads(c, grads);
}

#define PRECIS_INSTANTIATE(Model, Config, family)                                        \
  template class AdamW<Config>;                                                          \
  template void save_adamw_state<Config>(const std::filesystem::path&, const Config&,    \
                                         ParamsOf<Config>&, ParamsOf<Config>&, int64_t); \
  template int64_t load_adamw_state<Config>(const std::filesystem::path&, const Config&, \
                                            ParamsOf<Config>&, ParamsOf<Config>&);       \
  template double clip_grad_norm<Config>(const Config&, ParamsOf<Config>&, double);      \
  template double global_grad_norm<Config>(const Config&, ParamsOf<Config>&);            \
  template void zero_grads<Config>(const Config&, ParamsOf<Config>&);                    \
  template void zero_buffer_grads<Config>(const Config&, ParamsOf<Config>&);
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
