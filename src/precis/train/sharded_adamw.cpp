#include "precis/train/sharded_adamw.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "precis/kernels/elementwise.h"
#include "precis/kernels/grad_norm.h"
#include "precis/kernels/optimizer.h"

namespace precis::train {

namespace {

Tensor flat_view(float* base, int64_t first, int64_t count) {
  Tensor t;
  t.ptr = base + first;
  t.shape = Shape{count};
  return t;
}

}  // namespace

template <class Config>
ShardedAdamW<Config>::ShardedAdamW(const Config& config, const AdamWSettings& settings, Params& params,
                                   dist::Communicator& comm)
    : config_(config), settings_(settings), comm_(comm), layout_(dist::flat_layout(config, params)) {
  segments_ = dist::even_segments(layout_.size, comm.world_size());
  for (int r = 0; r < comm.rank(); ++r) begin_ += segments_[size_t(r)];
  end_ = begin_ + segments_[size_t(comm.rank())];
  exp_avg_.assign(size_t(end_ - begin_), 0.0f);
  exp_avg_sq_.assign(size_t(end_ - begin_), 0.0f);
}

template <class Config>
template <class F>
void ShardedAdamW<Config>::for_each_in_segment(F f) const {
  for (const dist::FlatTensor& t : layout_.tensors) {
    const int64_t first = std::max(begin_, t.offset), last = std::min(end_, t.offset + t.numel);
    if (first < last) f(t, first, last - first);
  }
}

template <class Config>
double ShardedAdamW<Config>::step(Params& params, Params& grads, double lr, double max_grad_norm) {
  ++step_;
  std::span<float> g = dist::flat_span(config_, grads), p = dist::flat_span(config_, params);
  check(int64_t(g.size()) == layout_.size && int64_t(p.size()) == layout_.size,
        "ZeRO-1: gradients and parameters have different layouts");
  comm_.reduce_scatter(g, segments_, dist::ReduceOp::Sum);
  double sum = 0.0;
  for_each_in_segment([&](const dist::FlatTensor&, int64_t first, int64_t n) {
    sum += sum_of_squares(flat_view(g.data(), first, n));
  });
  comm_.all_reduce(std::span<double>(&sum, 1), dist::ReduceOp::Sum);
  const double norm = std::sqrt(sum);
  const double coef = max_grad_norm > 0 ? max_grad_norm / (norm + 1e-6) : 1.0;
  for_each_in_segment([&](const dist::FlatTensor& t, int64_t first, int64_t n) {
    Tensor gv = flat_view(g.data(), first, n);
    if (coef < 1.0) scale_in_place(gv, float(coef));
    const double decay = t.role == ParamRole::Trainable ? settings_.weight_decay : 0.0;
    adamw_update(flat_view(p.data(), first, n), gv, flat_view(exp_avg_.data(), first - begin_, n),
                 flat_view(exp_avg_sq_.data(), first - begin_, n), lr, settings_.beta1,
                 settings_.beta2, settings_.epsilon, decay, step_);
  });
  comm_.all_gather(p, segments_);
  return norm;
}

template <class Config>
void ShardedAdamW<Config>::save(const std::filesystem::path& file) {
  // The unsharded state, laid out as the parameters, assembled from every rank's segment.
  Arena arena(2 * parameter_bytes(config_));
  Params m, v;
  allocate_parameters(config_, m, arena);
  allocate_parameters(config_, v, arena);
  std::span<float> fm = dist::flat_span(config_, m), fv = dist::flat_span(config_, v);
  std::copy(exp_avg_.begin(), exp_avg_.end(), fm.begin() + begin_);
  std::copy(exp_avg_sq_.begin(), exp_avg_sq_.end(), fv.begin() + begin_);
  comm_.all_gather(fm, segments_);
  comm_.all_gather(fv, segments_);
  if (comm_.is_main()) save_adamw_state(file, config_, m, v, step_);
}

template <class Config>
void ShardedAdamW<Config>::load(const std::filesystem::path& file) {
  Arena arena(2 * parameter_bytes(config_));
  Params m, v;
  allocate_parameters(config_, m, arena);
  allocate_parameters(config_, v, arena);
  step_ = load_adamw_state(file, config_, m, v);
  std::span<float> fm = dist::flat_span(config_, m), fv = dist::flat_span(config_, v);
  std::copy(fm.begin() + begin_, fm.begin() + end_, exp_avg_.begin());
  std::copy(fv.begin() + begin_, fv.begin() + end_, exp_avg_sq_.begin());
}

template class ShardedAdamW<BartConfig>;
template class ShardedAdamW<T5Config>;

}  // namespace precis::train
