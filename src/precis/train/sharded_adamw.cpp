#include "precis/train/sharded_adamw.h"

#include <cmath>

#include "precis/kernels/copy.h"
#include "precis/kernels/grad_norm.h"
#include "precis/kernels/optimizer.h"
#include "precis/model/families.h"

namespace precis::train {

template <class Config>
ShardedAdamW<Config>::ShardedAdamW(const Config& config, const AdamWSettings& settings,
                                   Params& params, dist::Communicator& comm)
    : config_(config), settings_(settings), comm_(comm), layout_(flat_layout(config, params)) {
  segments_ = dist::even_segments(layout_.size, comm.world_size());
  for (int r = 0; r < comm.rank(); ++r) begin_ += segments_[size_t(r)];
  end_ = begin_ + segments_[size_t(comm.rank())];
  const int64_t n = end_ - begin_, words = (n + 31) / 32;
  state_ = Arena(2 * size_t(n) * 4 + size_t(words) * 4 + 3 * Arena::kAlignment,
                 flat_tensor(config, params).device);
  exp_avg_ = state_.zeros(Shape{n});
  exp_avg_sq_ = state_.zeros(Shape{n});
  std::vector<uint32_t> bits = dist::weight_decay_mask(layout_, begin_, end_);
  decay_mask_ = state_.alloc(Shape{words}, DType::I32);
  copy(Tensor{bits.data(), decay_mask_.shape, DType::I32, Device::cpu()}, decay_mask_);
}

// The step around how clipping reads the gradient: `clip` gets this rank's reduced segment and
// returns the update's GradientRead.
template <class Config>
template <class Clip>
void ShardedAdamW<Config>::update(Params& params, Params& grads, double lr, Clip&& clip) {
  ++step_;
  const Tensor g = flat_tensor(config_, grads), p = flat_tensor(config_, params);
  check(g.numel() == layout_.size && p.numel() == layout_.size,
        "ZeRO-1: gradients and parameters have different layouts");
  comm_.reduce_scatter(g, segments_, dist::ReduceOp::Sum, current_stream());
  const Tensor g_segment = g.slice(begin_, end_), p_segment = p.slice(begin_, end_);
  const GradientRead read = clip(g_segment);
  adamw_update_masked(p_segment, g_segment, exp_avg_, exp_avg_sq_, decay_mask_, lr, settings_.beta1,
                      settings_.beta2, settings_.epsilon, settings_.weight_decay, step_, read);
  comm_.all_gather(p, segments_, current_stream());
}

template <class Config>
double ShardedAdamW<Config>::step(Params& params, Params& grads, double lr, double max_grad_norm) {
  double norm = 0.0;
  update(params, grads, lr, [&](const Tensor& g_segment) {
    double sum = sum_of_squares(g_segment);
    comm_.all_reduce(std::span<double>(&sum, 1), dist::ReduceOp::Sum);
    norm = std::sqrt(sum);
    // Clipping's scale applied as AdamW reads the segment (the same float product).
    return GradientRead{clip_scale(norm, max_grad_norm)};
  });
  return norm;
}

template <class Config>
void ShardedAdamW<Config>::step(Params& params, Params& grads, double lr, double max_grad_norm,
                                const Tensor& norm_squared) {
  update(params, grads, lr, [&](const Tensor& g_segment) {
    sum_of_squares_into(g_segment, norm_squared);
    comm_.all_reduce(norm_squared, dist::ReduceOp::Sum, current_stream());
    return GradientRead{.norm_squared = norm_squared, .max_norm = max_grad_norm};
  });
}

namespace {

// Both moments of every parameter, laid out as the parameters: what optimizer.safetensors
// holds, whatever the sharding.
template <class Config>
struct UnshardedMoments {
  Arena arena;
  ParamsOf<Config> exp_avg, exp_avg_sq;
  explicit UnshardedMoments(const Config& config) : arena(2 * parameter_bytes(config)) {
    allocate_parameters(config, exp_avg, arena);
    allocate_parameters(config, exp_avg_sq, arena);
  }
};

}  // namespace

template <class Config>
void ShardedAdamW<Config>::save(const std::filesystem::path& file) {
  // Assembled from every rank's segment.
  UnshardedMoments<Config> all(config_);
  const Tensor m = flat_tensor(config_, all.exp_avg), v = flat_tensor(config_, all.exp_avg_sq);
  copy(exp_avg_, m.slice(begin_, end_));
  copy(exp_avg_sq_, v.slice(begin_, end_));
  comm_.all_gather(m, segments_, current_stream());
  comm_.all_gather(v, segments_, current_stream());
  if (comm_.is_main()) save_adamw_state(file, config_, all.exp_avg, all.exp_avg_sq, step_);
}

template <class Config>
void ShardedAdamW<Config>::load(const std::filesystem::path& file) {
  UnshardedMoments<Config> all(config_);
  step_ = load_adamw_state(file, config_, all.exp_avg, all.exp_avg_sq);
  copy(flat_tensor(config_, all.exp_avg).slice(begin_, end_), exp_avg_);
  copy(flat_tensor(config_, all.exp_avg_sq).slice(begin_, end_), exp_avg_sq_);
}

#define PRECIS_INSTANTIATE(Model, Config, family) template class ShardedAdamW<Config>;
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
