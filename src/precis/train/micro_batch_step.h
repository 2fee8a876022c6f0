// The forward, loss and backward of one rank's micro-batch shard, the gradients added into the
// run's gradient buffer. The loss is the mean over the global micro-batch's label tokens,
// divided by the accumulation steps (accelerator.backward in HF 4.44), so 1 rank x 2b and
// 2 ranks x b give the same gradient (HF 4.44 averages per-rank means instead). With the
// bucketed all-reduce, each backward stage that ends lets the buckets it completes start.
#pragma once

#include <cstdint>

#include "precis/core/arena.h"
#include "precis/dist/gradient_buckets.h"
#include "precis/model/common/seq2seq_family.h"
#include "precis/train/micro_batch_shard.h"

namespace precis::train {

// The loss's denominator: label tokens of the global micro-batch x accumulation steps.
struct LossNormaliser {
  int64_t global_label_tokens = 0;
  int64_t accumulation_steps = 1;
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
