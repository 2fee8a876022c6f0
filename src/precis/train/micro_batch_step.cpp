#include "precis/train/micro_batch_step.h"

#include "precis/core/error.h"
#include "precis/model/families.h"
#include "precis/train/job_clock.h"

namespace precis::train {

template <class Config>
MicroBatchResult micro_batch_step(const Config& config, const ParamsOf<Config>& params,
                                  ParamsOf<Config>& grads, const MicroBatchShard& shard,
                                  const LossNormaliser& normaliser, float label_smoothing,
                                  bool several_ranks, dist::GradientAllReduce* grad_sync,
                                  const Tensor& step_loss, Arena& arena, double loss_scale) {
  const Seq2SeqBatch& batch = shard.batch;
  const int64_t B = batch.batch_size(), S = batch.input_ids.size(1), T = batch.labels.size(1);
  auto acts = allocate_activations(config, arena, B, S, T, true);
  auto scratch = allocate_grad_scratch(config, arena, B, S, T);
  if (grad_sync) scratch.stage_done = [grad_sync](int stage) { grad_sync->stage_done(stage); };
  MicroBatchResult result;
  const JobClock::time_point forward_start = JobClock::now();
  model_forward(config, params, batch, acts, shard.dropout);
  // LabelSmoother or the model's mean cross-entropy, over the rank's or the group's label tokens.
  check(shard.label_tokens > 0 || several_ranks, "a training batch has no label tokens (all -100)");
  const double global_tokens =
      double(normaliser.label_tokens > 0 ? normaliser.label_tokens : shard.label_tokens);
  const double accumulation = double(normaliser.accumulation_steps * normaliser.ranks);
  accumulate_model_loss(batch, acts, label_smoothing, global_tokens, accumulation, step_loss);
  const JobClock::time_point backward_start = JobClock::now();
  result.forward_s = std::chrono::duration<double>(backward_start - forward_start).count();
  model_backward(config, params, batch, acts, shard.dropout, label_smoothing,
                 float(loss_scale / (global_tokens * accumulation)), grads, scratch);
  result.backward_s = seconds_since(backward_start);
  result.samples = B;
  for (const auto* e : shard.examples)
    result.tokens += int64_t(e->input_ids.size() + e->labels.size());
  return result;
}

#define PRECIS_INSTANTIATE(Model, Config, family)                                          \
  template MicroBatchResult micro_batch_step<Config>(                                      \
      const Config&, const ParamsOf<Config>&, ParamsOf<Config>&, const MicroBatchShard&,   \
      const LossNormaliser&, float, bool, dist::GradientAllReduce*, const Tensor&, Arena&, \
      double);
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
