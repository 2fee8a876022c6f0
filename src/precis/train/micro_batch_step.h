// The forward, loss and backward of one rank's micro-batch shard, the gradients added into the
// run's gradient buffer (summed over ranks by the all-reduce). The loss's denominator
// (LossNormaliser) is HF's: 4.44's mean over the rank's own label tokens, divided by the
// accumulation steps and the ranks (accelerate's backward, then DDP's average); or 5.x's sum over
// the accumulation group's label tokens on every rank (num_items_in_batch with
// average_tokens_across_devices), where 1 rank x 2b and 2 ranks x b give the same gradient.
// With the bucketed all-reduce, each backward stage that ends lets the buckets it completes start.
#pragma once

#include <cstdint>

#include "precis/core/arena.h"
#include "precis/dist/gradient_buckets.h"
#include "precis/model/common/seq2seq_family.h"
#include "precis/train/micro_batch_shard.h"

namespace precis::train {

// The loss's denominator: label tokens x accumulation steps x ranks. `label_tokens`: the
// accumulation group's on every rank (5.x: accumulation_steps and ranks 1), or 0 for the rank's
// own shard's (4.44).
struct LossNormaliser {
  int64_t label_tokens = 0;
  int64_t accumulation_steps = 1;
  int64_t ranks = 1;
};

struct MicroBatchResult {
  int64_t samples = 0, tokens = 0;
  double forward_s = 0, backward_s = 0;  // the forward with the loss; the backward
};

// Config: BartConfig or T5Config. `grad_sync`: the all-reduce to start as stages end, on the
// step's last micro-batch with several ranks; else null. `several_ranks`: another rank may hold
// every label token of the global batch. The shard's share of the step's loss is added to
// step_loss (1) F64 where the loss is computed; the training loop reads it once per step.
// `loss_scale` multiplies the loss's gradient (--fp16's LossScaler; 1 otherwise).
template <class Config>
MicroBatchResult micro_batch_step(const Config& config, const ParamsOf<Config>& params,
                                  ParamsOf<Config>& grads, const MicroBatchShard& shard,
                                  const LossNormaliser& normaliser, float label_smoothing,
                                  bool several_ranks, dist::GradientAllReduce* grad_sync,
                                  const Tensor& step_loss, Arena& arena, double loss_scale = 1.0);

}  // namespace precis::train
