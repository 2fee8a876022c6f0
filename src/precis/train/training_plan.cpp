#include "precis/train/training_plan.h"

#include <algorithm>
#include <cstdio>

#include "precis/core/error.h"
#include "precis/train/lr_schedule.h"

namespace precis::train {

TrainingPlan plan_training(const TrainingArguments& a, int64_t batches_per_epoch) {
  check(batches_per_epoch > 0,
        "the training data makes no batch (dataloader_drop_last with too few examples?)");
  TrainingPlan plan;
  plan.batches_per_epoch = batches_per_epoch;
  plan.updates_per_epoch = num_update_steps_per_epoch(batches_per_epoch, a);
  plan.total_steps = total_train_steps(plan.updates_per_epoch, a);
  plan.epoch_total_steps = plan.total_steps;
  plan.epochs = num_train_epochs_to_run(plan.updates_per_epoch, a);
  plan.warmup = warmup_steps(a, plan.total_steps);
  plan.accumulation = a.gradient_accumulation_steps;
  plan.semantics = parse_hf_semantics(a.hf_semantics, "--hf_semantics");
  return plan;
}

void record_plan(TrainerState& state, const TrainingPlan& plan, const TrainingArguments& a) {
  state.max_steps = plan.total_steps;
  state.num_train_epochs = plan.epochs;
  state.train_batch_size = a.per_device_train_batch_size;
  state.logging_steps = interval_steps(a.logging_steps, plan.total_steps);
  state.save_steps = interval_steps(a.save_steps, plan.total_steps);
  state.eval_steps = interval_steps(a.eval_steps.value_or(a.logging_steps), plan.total_steps);
}

void print_training_plan(const TrainingPlan& plan, size_t examples, const TrainingArguments& a,
                         int world) {
  std::fprintf(stderr,
               "precis: %zu training examples, %lld batches per epoch, %lld optimizer steps (%lld "
               "epochs, batch %lld x %d rank%s x accumulation %lld), warmup %lld%s\n",
               examples, (long long)plan.batches_per_epoch, (long long)plan.total_steps,
               (long long)plan.epochs, (long long)a.per_device_train_batch_size, world,
               world == 1 ? "" : "s", (long long)plan.accumulation, (long long)plan.warmup,
               a.zero_stage == 1 ? ", ZeRO-1" : "");
}

TrainingPosition position_after(int64_t first_step, const TrainingPlan& plan) {
  TrainingPosition p;
  p.first_step = first_step;
  p.epochs_done = first_step / plan.updates_per_epoch;
  p.micro_batches_to_skip = (first_step % plan.updates_per_epoch) * plan.accumulation;
  p.micro_batches_done = p.epochs_done * plan.batches_per_epoch + p.micro_batches_to_skip;
  return p;
}

TimeBudgetHorizon::TimeBudgetHorizon(const TrainingArguments& a, const TrainingPlan& plan,
                                     int64_t first_step, JobClock::time_point job_start,
                                     JobClock::time_point train_start)
    : active_(a.max_train_time_s > 0 && a.max_steps <= 0),
      budget_s_(a.max_train_time_s),
      first_step_(first_step),
      epoch_total_steps_(plan.epoch_total_steps),
      job_start_(job_start),
      train_start_(train_start) {}

std::optional<HorizonEstimate> TimeBudgetHorizon::after_step(int64_t step,
                                                             dist::Communicator& comm) {
  if (!active_ || step - first_step_ < next_estimate_) return std::nullopt;
  HorizonEstimate e;
  e.seconds_per_step = seconds_since(train_start_) / double(step - first_step_);
  const double left = budget_s_ - seconds_since(job_start_);
  e.total_steps = time_budget_horizon(step, e.seconds_per_step, left, epoch_total_steps_);
  if (comm.world_size() > 1) comm.broadcast_value(e.total_steps, 0);
  e.first = !estimated_;
  estimated_ = true;
  next_estimate_ = step - first_step_ + std::max<int64_t>(100, (e.total_steps - first_step_) / 10);
  return e;
}

}  // namespace precis::train
