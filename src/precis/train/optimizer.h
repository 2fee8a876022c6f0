// AdamW over a model's parameters (BART or T5: Config is BartConfig or T5Config) with Hugging Face's parameter groups (weight decay for
// everything but biases and LayerNorm weights), torch.optim.AdamW's math, and global-norm
// clipping as torch.nn.utils.clip_grad_norm_. Its state has the layout of the parameters,
// so it saves by parameter name and resumes on any world size.
#pragma once

#include <filesystem>

#include "precis/kernels/optimizer.h"
#include "precis/model/common/seq2seq_family.h"

namespace precis::train {

struct AdamWSettings {
  double learning_rate = 5e-5;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8, weight_decay = 0.0;
};

template <class Config>
class AdamW {
 public:
  using Params = ParamsOf<Config>;
  AdamW(const Config& config, const AdamWSettings& settings);

  // One update with learning rate `lr` (the schedule's value for this step), reading the
  // gradient as `read` says (clipped on the way in, zeroed after: kernels/optimizer.h).
  void step(Params& params, Params& grads, double lr, const GradientRead& read = {});

  // clip_grad_norm_(max_norm), step() and zero_grad() as Seq2SeqTrainer runs them, in two
  // passes over the gradient and with nothing read back: its Σ g² into `norm_squared` (one
  // F64 on the parameters' device), then the update reading the gradient scaled by the
  // clipping coefficient formed there and leaving it zero. With skip_if_not_finite (fp16's
  // GradScaler) an inf or NaN norm leaves the parameters and moments as they were; the
  // gradient is zeroed either way, and the caller, once it has read the norm, says so with
  // step_skipped() (a skipped step is not counted). `compute_copy` (mixed precision's flat
  // 16-bit copy, ComputeCopy::flat) is refreshed in the same pass where given.
  void clipped_step(Params& params, Params& grads, double lr, double max_norm,
                    bool skip_if_not_finite, const Tensor& norm_squared,
                    const Tensor& compute_copy = {});
  void step_skipped() { --step_; }
  // The same, reading the norm back (on a GPU a wait for the queue): returns the norm before
  // clipping.
  double clipped_step(Params& params, Params& grads, double lr, double max_norm,
                      bool skip_if_not_finite = false);
  int64_t steps_taken() const { return step_; }
  size_t state_bytes() const { return arena_.capacity(); }

  // optimizer.safetensors: "<param>.exp_avg", "<param>.exp_avg_sq", metadata {"step": N}.
  void save(const std::filesystem::path& file) const;
  void load(const std::filesystem::path& file);

 private:
  Config config_;
  AdamWSettings settings_;
  Arena arena_;
  Params exp_avg_, exp_avg_sq_;
  Tensor decay_mask_;    // dist::weight_decay_mask over the flat range, in arena_
  Tensor norm_squared_;  // (1) F64 in arena_: the reading clipped_step's norm
  int64_t step_ = 0;
};

// optimizer.safetensors from / into state with the parameters' layout (the file does not
// depend on how many ranks shared the state). load returns the step count.
template <class Config>
void save_adamw_state(const std::filesystem::path& file, const Config& config, ParamsOf<Config>& exp_avg,
                      ParamsOf<Config>& exp_avg_sq, int64_t step);
template <class Config>
int64_t load_adamw_state(const std::filesystem::path& file, const Config& config, ParamsOf<Config>& exp_avg,
                         ParamsOf<Config>& exp_avg_sq);

// The global L2 norm of every trainable gradient, one reduction over the flat buffer.
template <class Config>
double global_grad_norm(const Config& config, ParamsOf<Config>& grads);

// What clip_grad_norm_ multiplies the gradients by for this norm: max_norm / (norm + 1e-6) in
// float where that is under 1 (max_norm > 0), else 1 (the gradients stay as they are).
float clip_scale(double norm, double max_norm);

// global_grad_norm, then the gradients scaled by clip_scale. Returns the norm.
template <class Config>
double clip_grad_norm(const Config& config, ParamsOf<Config>& grads, double max_norm);

// Sets every gradient to zero: the flat buffer's, and the buffers' outside it
// (zero_buffer_grads alone, where AdamW zeroed the flat buffer as it read it).
template <class Config>
void zero_grads(const Config& config, ParamsOf<Config>& grads);
template <class Config>
void zero_buffer_grads(const Config& config, ParamsOf<Config>& grads);

}  // namespace precis::train
