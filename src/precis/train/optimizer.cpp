#include "precis/train/optimizer.h"

#include <cmath>

#include "precis/kernels/fill.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/grad_norm.h"
#include "precis/kernels/optimizer.h"
#include "precis/io/safetensors.h"

namespace precis::train {

namespace {

// Visits the trainable tensors of two parameter-shaped structs side by side.
template <class Config, class F>
void zip_trainable(const Config& c, ParamsOf<Config>& a, ParamsOf<Config>& b, F f) {
  std::vector<Tensor*> second;
  visit_parameters(c, b, [&](const std::string&, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) second.push_back(&t);
  });
  size_t i = 0;
  visit_parameters(c, a, [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) f(name, t, *second[i++], role);
  });
}

}  // namespace

template <class Config>
AdamW<Config>::AdamW(const Config& config, const AdamWSettings& settings)
    : config_(config), settings_(settings), arena_(2 * parameter_bytes(config)) {
  allocate_parameters(config_, exp_avg_, arena_);
  allocate_parameters(config_, exp_avg_sq_, arena_);
}

template <class Config>
void AdamW<Config>::step(Params& params, Params& grads, double lr) {
  ++step_;
  std::vector<Tensor*> m, v;
  visit_parameters(config_, exp_avg_, [&](const std::string&, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) m.push_back(&t);
  });
  visit_parameters(config_, exp_avg_sq_, [&](const std::string&, Tensor& t, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) v.push_back(&t);
  });
  size_t i = 0;
  zip_trainable(config_, params, grads, [&](const std::string&, Tensor& p, Tensor& g, ParamRole role) {
    double decay = role == ParamRole::Trainable ? settings_.weight_decay : 0.0;
    adamw_update(p, g, *m[i], *v[i], lr, settings_.beta1, settings_.beta2, settings_.epsilon, decay,
                 step_);
    ++i;
  });
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

template <class Config>
double clip_grad_norm(const Config& c, ParamsOf<Config>& grads, double max_norm) {
  double sum = 0.0;
  visit_parameters(c, grads, [&](const std::string&, Tensor& g, Shape, ParamRole role) {
    if (role != ParamRole::Buffer) sum += sum_of_squares(g);
  });
  double norm = std::sqrt(sum);
  if (max_norm > 0) {
    double coef = max_norm / (norm + 1e-6);
    if (coef < 1.0) {
      visit_parameters(c, grads, [&](const std::string&, Tensor& g, Shape, ParamRole role) {
        if (role != ParamRole::Buffer) scale_in_place(g, float(coef));
      });
    }
  }
  return norm;
}

template <class Config>
void zero_grads(const Config& c, ParamsOf<Config>& grads) {
  visit_parameters(c, grads, [&](const std::string&, Tensor& g, Shape, ParamRole) { zero(g); });
}

#define PRECIS_INSTANTIATE(Config)                                                                    \
  template class AdamW<Config>;                                                                     \
  template void save_adamw_state<Config>(const std::filesystem::path&, const Config&, ParamsOf<Config>&, \
                                         ParamsOf<Config>&, int64_t);                               \
  template int64_t load_adamw_state<Config>(const std::filesystem::path&, const Config&, ParamsOf<Config>&, \
                                            ParamsOf<Config>&);                                     \
  template double clip_grad_norm<Config>(const Config&, ParamsOf<Config>&, double);                 \
  template void zero_grads<Config>(const Config&, ParamsOf<Config>&);
PRECIS_INSTANTIATE(BartConfig)
PRECIS_INSTANTIATE(T5Config)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
