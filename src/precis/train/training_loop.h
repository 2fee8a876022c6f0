// do_train's loop, as HF 4.44's _inner_training_loop: epochs of global micro-batches (a resumed
// run skipping what it has done), gradients accumulated over gradient_accumulation_steps
// micro-batches, then the optimizer step; after each step, in HF's order
// (_maybe_log_save_evaluate): the reports, an evaluation, the stop decision, a checkpoint. At the
// end the summary, the final model and job_summary.json. With several ranks every rank runs the
// loop in step, each computing its shard of each micro-batch, so that every collective (the
// gradient all-reduce, the loss sum, an evaluation, the stop agreement, ZeRO-1's gather for a
// checkpoint) is reached by all ranks in the same order. Model: a family's (model/families.h).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "precis/core/arena.h"
#include "precis/dist/communicator.h"
#include "precis/dist/gradient_buckets.h"
#include "precis/train/checkpointer.h"
#include "precis/train/evaluator.h"
#include "precis/train/job_clock.h"
#include "precis/train/job_summary.h"
#include "precis/train/stop_policy.h"
#include "precis/train/trainer_callback.h"
#include "precis/train/training_data.h"
#include "precis/train/training_plan.h"
#include "precis/train/training_run.h"

namespace precis::train {

template <class Model>
class TrainingLoop {
 public:
  // The parts Seq2SeqTrainer::train set up: the data, the plan, the run (resumed or fresh)
  // with its checkpointer, the activation arena. Starts the reporters' files.
  TrainingLoop(const TrainingArguments& args, dist::Communicator& comm,
               JobClock::time_point job_start, TrainingRun<Model>& run,
               const Evaluator<Model>& evaluator, Checkpointer<Model>& checkpointer,
               const TrainingData& data, const TrainingPlan& plan, Arena& arena);

  // Trains to the end of the plan or the time budget; returns train_results.json's content.
  // nullopt when a signal stopped it (a checkpoint saved, a rerun resumes).
  std::optional<nlohmann::json> run();

 private:
  void run_epoch(int64_t epoch);
  // The forward and backward of this rank's shard of `global`; `update` when it ends a step.
  // `group_tokens`: under 5.x's loss, the label tokens of the whole accumulation group (all
  // ranks), num_items_in_batch; 0 under 4.44's.
  void micro_batch(const GlobalBatch& global, bool update, int64_t group_tokens);
  // The optimizer step, then what follows it: reports, evaluation, stop, checkpoint.
  void end_step(double epoch_progress);
  void log_if_due(int64_t step, double grad_norm, double step_lr);
  // metric_for_best_model's value when this step evaluated.
  std::optional<double> evaluate_if_due(int64_t step);
  nlohmann::json finish();
  nlohmann::json train_summary(double train_runtime) const;
  void complete_job_summary(double train_runtime);

  const TrainingArguments& args_;
  dist::Communicator& comm_;
  const JobClock::time_point job_start_;
  TrainingRun<Model>& run_;
  const Evaluator<Model>& evaluator_;
  Checkpointer<Model>& checkpointer_;
  const TrainingData& data_;
  TrainingPlan plan_;  // its total_steps follows the time budget's horizon
  Arena& arena_;
  // Set up in this order.
  const TrainingPosition position_;
  JobSummary job_;
  std::unique_ptr<dist::GradientAllReduce> grad_sync_;  // plain data parallelism only
  const JobClock::time_point train_start_;
  CallbackHandler reporters_;
  TimeBudgetHorizon horizon_;
  StopPolicy stop_policy_;

  StopDecision decision_;
  int64_t micro_batches_done_;  // over all epochs, as HF counts them for accumulation
  int64_t micro_in_step_ = 0;
  Arena loss_arena_;            // on the training device
  // (2) F64 on the training device, the step's one read: its loss, summed over its
  // micro-batches, then its gradient's Σ g² (the optimizer's, unless ZeRO-1 read it already).
  Tensor step_report_;

  double logged_loss_sum_ = 0;  // step losses since the last logging step
  int64_t last_logged_step_;
  double run_loss_sum_ = 0;  // this run's step losses
  int64_t samples_seen_ = 0, tokens_seen_ = 0;
  StepTimes step_times_;  // summed over this run's steps; other_s left to the end
};

}  // namespace precis::train
