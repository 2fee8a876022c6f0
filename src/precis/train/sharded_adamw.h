// ZeRO stage 1: AdamW whose state is split across the data-parallel ranks. The step reads
// like the algorithm: reduce-scatter the gradients (rank r ends with the summed gradient of
// its segment of the flat buffer), the global norm from every segment's sum of squares,
// clip, update the segment's parameters with the segment's moments (one fused AdamW over the
// segment), all-gather the parameters. Each rank holds 1/N of the moments; the weights are
// the same as with the unsharded AdamW up to the summation order of the norm.
//
// Checkpoints gather the moments into the unsharded optimizer.safetensors (AdamW's format),
// so a run saved on N ranks resumes on any number, sharded or not.
#pragma once

#include <filesystem>
#include <vector>

#include "precis/dist/communicator.h"
#include "precis/model/common/flat_parameters.h"
#include "precis/train/optimizer.h"

namespace precis::train {

template <class Config>
class ShardedAdamW {
 public:
  using Params = ParamsOf<Config>;
  ShardedAdamW(const Config& config, const AdamWSettings& settings, Params& params,
               dist::Communicator& comm);

  // grads: this rank's gradient sums (the loss already normalised by the global token
  // count). Leaves grads undefined. Returns the global gradient norm before clipping.
  double step(Params& params, Params& grads, double lr, double max_grad_norm);
  // The same step with nothing read back (on a GPU): the global Σ g² is left in norm_squared
  // (one F64 on the parameters' device), all-reduced there, and clipping's scale formed from
  // it by the update itself (GradientRead::norm_squared).
  void step(Params& params, Params& grads, double lr, double max_grad_norm,
            const Tensor& norm_squared);

  int64_t steps_taken() const { return step_; }
  size_t state_bytes() const { return exp_avg_.nbytes() + exp_avg_sq_.nbytes(); }

  // Collective: every rank calls it; rank 0 writes the file.
  void save(const std::filesystem::path& file);
  void load(const std::filesystem::path& file);

 private:
  template <class Clip>
  void update(Params& params, Params& grads, double lr, Clip&& clip);

  Config config_;
  AdamWSettings settings_;
  dist::Communicator& comm_;
  dist::FlatLayout layout_;
  std::vector<int64_t> segments_;  // floats per rank
  int64_t begin_ = 0, end_ = 0;    // this rank's segment
  Arena state_;                                 // on the parameters' device
  Tensor exp_avg_, exp_avg_sq_;                 // the segment's moments
  Tensor decay_mask_;                           // dist::weight_decay_mask over the segment
  int64_t step_ = 0;
};

}  // namespace precis::train
