// How long a run trains: its optimizer steps, epochs and warmup, counted from the data and the
// options as HF 4.44's _inner_training_loop counts them (the rules are in lr_schedule.h); where a
// resumed run picks up; and, with a time budget and no max_steps, the horizon the schedule
// ends at, estimated from the measured step rate so that a decaying schedule ends where the
// budget does instead of far beyond it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "precis/dist/communicator.h"
#include "precis/train/job_clock.h"
#include "precis/train/trainer_state.h"
#include "precis/train/training_arguments.h"

namespace precis::train {

struct TrainingPlan {
  int64_t batches_per_epoch = 0;  // global micro-batches
  int64_t updates_per_epoch = 0;
  int64_t total_steps = 0;        // the schedule's horizon; the time budget may move it
  int64_t epoch_total_steps = 0;  // total_steps from the epochs (or max_steps) alone
  int64_t epochs = 0;
  int64_t warmup = 0;
  int64_t accumulation = 1;  // micro-batches per optimizer step
  HfSemantics semantics = HfSemantics::kV5;  // 5.x groups micro-batches within epochs
};

// Throws precis::Error when the data makes no batch.
TrainingPlan plan_training(const TrainingArguments& args, int64_t batches_per_epoch);

// The plan's counts in a fresh run's TrainerState (a resumed run takes its checkpoint's).
void record_plan(TrainerState& state, const TrainingPlan& plan, const TrainingArguments& args);

// The plan on stderr, once, for rank 0.
void print_training_plan(const TrainingPlan& plan, size_t examples, const TrainingArguments& args,
                         int world);

// Where a run that has made `first_step` updates picks up: the epochs done, and the
// micro-batches of the current epoch already trained on, which it skips as HF does.
struct TrainingPosition {
  int64_t first_step = 0;
  int64_t epochs_done = 0;
  int64_t micro_batches_to_skip = 0;
  int64_t micro_batches_done = 0;  // over all epochs: what gradient accumulation counts
};
TrainingPosition position_after(int64_t first_step, const TrainingPlan& plan);

// A new horizon for the schedule, from this rank's measured rate.
struct HorizonEstimate {
  int64_t total_steps = 0;  // rank 0's, the same on every rank
  double seconds_per_step = 0;
  bool first = false;  // the first estimate of the run
};

// With --max_train_time_s and no max_steps: the horizon is first estimated after 100 steps,
// then refined every tenth of the way. Rank 0's clock decides for every rank.
class TimeBudgetHorizon {
 public:
  TimeBudgetHorizon(const TrainingArguments& args, const TrainingPlan& plan, int64_t first_step,
                    JobClock::time_point job_start, JobClock::time_point train_start);
  // After update `step`: a new horizon when one is due (collective), else nullopt.
  std::optional<HorizonEstimate> after_step(int64_t step, dist::Communicator& comm);

 private:
  bool active_;
  double budget_s_;
  int64_t first_step_, epoch_total_steps_;
  JobClock::time_point job_start_, train_start_;
  int64_t next_estimate_ = 100;  // steps after first_step
  bool estimated_ = false;
};

}  // namespace precis::train
