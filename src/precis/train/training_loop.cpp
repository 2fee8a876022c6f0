#include "precis/train/training_loop.h"

#include <algorithm>
#include <cstdio>
#include <span>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/fill.h"
#include "precis/model/families.h"
#include "precis/train/interrupt.h"
#include "precis/train/lr_schedule.h"
#include "precis/train/micro_batch_shard.h"
#include "precis/train/micro_batch_step.h"
#include "precis/train/reporters.h"
#include "precis/train/results_files.h"
#include "precis/train/test_stop.h"

namespace precis::train {

namespace fs = std::filesystem;

namespace {

// A blocking all-reduce of the whole gradient buffer (zeros), the median of a few: what the
// bucketed all-reduce would cost if nothing hid it.
double blocking_allreduce_seconds(dist::Communicator& comm, const Tensor& flat) {
  Arena arena(flat.nbytes() + Arena::kAlignment, flat.device);
  const Tensor zeros = arena.zeros(flat.shape, flat.dtype);
  std::vector<double> t;
  for (int i = 0; i < 3; ++i) {
    comm.barrier();
    auto start = JobClock::now();
    comm.all_reduce(zeros, dist::ReduceOp::Sum, current_stream());
    t.push_back(seconds_since(start));
  }
  std::sort(t.begin(), t.end());
  double median = t[t.size() / 2];
  comm.broadcast_value(median, 0);
  return median;
}

JobSummary job_summary_at_start(const TrainingArguments& a, dist::Communicator& comm,
                                size_t optimizer_state_bytes) {
  JobSummary job;
  job.world_size = comm.world_size();
  job.hosts = comm.hosts();
  job.zero_stage = int(a.zero_stage);
  job.price_per_hour = a.price_per_hour;
  job.optimizer_state_bytes_per_rank = optimizer_state_bytes;
  job.blas = cpu::blas_report();
  return job;
}

// Data parallelism without ZeRO-1 all-reduces the gradients in buckets, started as the
// backward finishes layers (ZeRO-1 reduce-scatters inside its optimizer step). What a blocking
// all-reduce would cost goes into the job summary.
template <class Model>
std::unique_ptr<dist::GradientAllReduce> gradient_sync_for(const TrainingArguments& a,
                                                           dist::Communicator& comm,
                                                           TrainingRun<Model>& run,
                                                           JobSummary& job) {
  if (comm.world_size() == 1 || run.sharded) return nullptr;
  const int64_t bucket_mib = a.ddp_bucket_cap_mb.value_or(25);
  auto sync = std::make_unique<dist::GradientAllReduce>(flat_gradients(run.model.config, run.grads),
                                                        comm, bucket_mib << 20);
  job.allreduce_blocking_s = blocking_allreduce_seconds(comm, sync->flat());
  job.gradient_buckets = int64_t(sync->buckets().size());
  return sync;
}

}  // namespace

template <class Model>
TrainingLoop<Model>::TrainingLoop(const TrainingArguments& a, dist::Communicator& comm,
                                  JobClock::time_point job_start, TrainingRun<Model>& run,
                                  const Evaluator<Model>& evaluator,
                                  Checkpointer<Model>& checkpointer, const TrainingData& data,
                                  const TrainingPlan& plan, Arena& arena)
    : args_(a),
      comm_(comm),
      job_start_(job_start),
      run_(run),
      evaluator_(evaluator),
      checkpointer_(checkpointer),
      data_(data),
      plan_(plan),
      arena_(arena),
      position_(position_after(run.state.global_step, plan)),
      job_(job_summary_at_start(a, comm, run.optimizer_state_bytes())),
      grad_sync_(gradient_sync_for(a, comm, run, job_)),
      train_start_(JobClock::now()),
      reporters_(make_reporters(a, comm.is_main(), run.state, position_.first_step,
                                plan.total_steps, run.model.config.to_json())),
      horizon_(a, plan, position_.first_step, job_start, train_start_),
      stop_policy_(a, comm, job_start),
      micro_batches_done_(position_.micro_batches_done),
      loss_arena_(Arena::kAlignment),
      step_report_(loss_arena_.zeros(Shape{2}, DType::F64)),
      last_logged_step_(position_.first_step) {
  stop_policy_.watch_for_interrupts();
}

template <class Model>
std::optional<nlohmann::json> TrainingLoop<Model>::run() {
  zero_grads(run_.model.config, run_.grads);
  // Activations in the compute type (16-bit under mixed precision); the weights the model
  // multiplies by from the master as it stands now (a resume may have replaced it).
  arena_.set_element_type(run_.compute_dtype());
  run_.refresh_compute();
  for (int64_t epoch = position_.epochs_done; epoch < plan_.epochs && !decision_.stop; ++epoch) {
    run_epoch(epoch);
    if (args_.save_strategy == IntervalStrategy::kEpoch && !decision_.stop) checkpointer_.save();
  }
  reporters_.on_loop_end();
  if (decision_.interrupted) {
    if (comm_.is_main())
      std::fprintf(stderr,
                   "precis: %s: stopped at step %lld and saved %s; run the same command again to "
                   "resume\n",
                   InterruptRequest::signal_name(), (long long)run_.state.global_step,
                   checkpointer_.last_saved()->string().c_str());
    return std::nullopt;
  }
  return finish();
}

template <class Model>
void TrainingLoop<Model>::run_epoch(int64_t epoch) {
  const std::vector<GlobalBatch> batches = data_.global_batches(epoch);
  const int64_t batches_in_epoch = int64_t(batches.size());
  const int64_t accumulation = plan_.accumulation;
  const int64_t first = epoch == position_.epochs_done ? position_.micro_batches_to_skip : 0;
  const bool v5 = plan_.semantics == HfSemantics::kV5;
  int64_t group_tokens = 0;
  for (int64_t b = first; b < batches_in_epoch && !decision_.stop; ++b) {
    ++micro_batches_done_;
    bool update;
    if (v5) {
      // 5.x: groups of accumulation micro-batches within the epoch, the last one short; the loss
      // divides by the group's label tokens (num_items_in_batch), counted before its first.
      update = (b + 1) % accumulation == 0 || b + 1 == batches_in_epoch;
      if (b % accumulation == 0) {
        group_tokens = 0;
        for (int64_t j = b; j < std::min(b + accumulation, batches_in_epoch); ++j)
          group_tokens += label_tokens(data_.examples, batches[size_t(j)]);
      }
    } else {
      // HF 4.44's rule (lr_schedule.h): accumulation groups run across epoch boundaries, except
      // in an epoch shorter than one group, whose last micro-batch updates.
      update = micro_batches_done_ % accumulation == 0 ||
               (batches_in_epoch <= accumulation && b + 1 == batches_in_epoch);
    }
    micro_batch(batches[size_t(b)], update, group_tokens);
    if (update) end_step(double(epoch) + double(b + 1) / double(batches_in_epoch));
  }
}

template <class Model>
void TrainingLoop<Model>::micro_batch(const GlobalBatch& global, bool update,
                                      int64_t group_tokens) {
  const JobClock::time_point batch_start = JobClock::now();
  arena_.reset();
  const int rank = comm_.rank(), world = comm_.world_size();
  const int64_t global_tokens = label_tokens(data_.examples, global);
  // 4.44: each rank's mean over its micro-batch's tokens, over the accumulation steps and the
  // ranks (DDP averages); 5.x: the group's summed token losses over the group's tokens, all ranks'.
  const LossNormaliser normaliser = group_tokens > 0
                                        ? LossNormaliser{group_tokens, 1, 1}
                                        : LossNormaliser{0, plan_.accumulation, int64_t(world)};
  if (!global.shards[size_t(rank)].empty()) {
    const DropoutContext dropout{true, uint64_t(args_.seed), uint64_t(run_.state.global_step),
                                     uint32_t(micro_in_step_)};
    const MicroBatchShard shard =
        collate_shard(global, data_.examples, rank, world, run_.collator, dropout, arena_);
    step_times_.batch_s += seconds_since(batch_start);
    const MicroBatchResult r = micro_batch_step(
        run_.model.config, run_.params_to_compute_with(), run_.grads, shard, normaliser,
        float(args_.label_smoothing_factor), world > 1, update ? grad_sync_.get() : nullptr,
        step_report_.slice(0, 1), arena_, run_.scaler ? run_.scaler->scale() : 1.0);
    samples_seen_ += r.samples;
    tokens_seen_ += r.tokens;
    step_times_.forward_s += r.forward_s;
    step_times_.backward_s += r.backward_s;
  }
  check(global_tokens > 0 || group_tokens > 0, "a training batch has no label tokens (all -100)");
  stop_here_for_test("micro", run_.state.global_step, micro_in_step_);  // see test_stop.h
  ++micro_in_step_;
}

template <class Model>
void TrainingLoop<Model>::end_step(double epoch_progress) {
  TrainerState& state = run_.state;
  // Under --fp16 a skipped step does not advance the schedule (HF steps it only when the
  // optimizer stepped).
  const int64_t skipped = run_.scaler ? run_.scaler->skipped_steps() : 0;
  const double lr =
      learning_rate_at(args_, state.global_step - skipped, plan_.total_steps, plan_.warmup);
  const JobClock::time_point optimizer_start = JobClock::now();
  OptimizerStepResult update = run_.optimizer_step(lr, grad_sync_.get(), step_report_.slice(1, 2));
  // The parts of a step add up to its time: the calls made inside the backward move from the
  // backward's part to the all-reduce's.
  const dist::GradientAllReduce::ExposedTime exposed = update.exposed_allreduce;
  step_times_.allreduce_wait_s += exposed.in_backward_s + exposed.after_backward_s;
  step_times_.backward_s -= exposed.in_backward_s;
  // Ranks on GPUs sum the step's loss there, so the read below is the step's only wait.
  const bool loss_summed_on_device = comm_.world_size() > 1 && !step_report_.device.is_cpu();
  if (loss_summed_on_device)
    comm_.all_reduce(step_report_.slice(0, 1), dist::ReduceOp::Sum, current_stream());
  // The step's one read (on a GPU its one wait): the loss, from where the micro-batches added
  // it up, and the gradient's norm.
  double report[2] = {0.0, 0.0};
  copy(step_report_, Tensor{report, step_report_.shape, DType::F64, Device::cpu()});
  zero(step_report_);
  step_times_.optimizer_s += seconds_since(optimizer_start) - exposed.after_backward_s;
  double step_loss = report[0];
  if (update.norm_on_device) {
    update.grad_norm = std::sqrt(report[1]);
    run_.norm_read(update.grad_norm);
  }
  if (comm_.world_size() > 1 && !loss_summed_on_device)
    comm_.all_reduce(std::span<double>(&step_loss, 1), dist::ReduceOp::Sum);
  state.global_step += 1;
  state.epoch = epoch_progress;
  logged_loss_sum_ += step_loss;
  run_loss_sum_ += step_loss;
  micro_in_step_ = 0;

  const int64_t step = state.global_step;
  const std::optional<HorizonEstimate> horizon = horizon_.after_step(step, comm_);
  if (horizon) plan_.total_steps = state.max_steps = horizon->total_steps;
  reporters_.on_step_end(
      {step, state.epoch, step_loss, update.grad_norm, lr, seconds_since(train_start_), horizon});
  log_if_due(step, update.grad_norm, lr);
  const std::optional<double> evaluated_metric = evaluate_if_due(step);
  decision_ = stop_policy_.after_step(step, plan_.total_steps);
  if (checkpointer_.due(step, decision_)) checkpointer_.save_step(step, evaluated_metric);
}

template <class Model>
void TrainingLoop<Model>::log_if_due(int64_t step, double grad_norm, double step_lr) {
  const bool due = (args_.logging_strategy == IntervalStrategy::kSteps &&
                    step % run_.state.logging_steps == 0) ||
                   (args_.logging_first_step && step == 1);
  if (!due) return;
  nlohmann::json entry;
  entry["loss"] = round_to(logged_loss_sum_ / double(step - last_logged_step_), 4);
  // 4.44 logs the norm only when it clipped by it; 5.x always.
  if (plan_.semantics == HfSemantics::kV5 || args_.max_grad_norm > 0)
    entry["grad_norm"] = grad_norm;
  // 4.44 logs the scheduler's rate after its step, the next step's; 5.x the rate this step used.
  const int64_t skipped = run_.scaler ? run_.scaler->skipped_steps() : 0;
  entry["learning_rate"] =
      plan_.semantics == HfSemantics::kV5
          ? step_lr
          : learning_rate_at(args_, step - skipped, plan_.total_steps, plan_.warmup);
  entry["epoch"] = run_.state.epoch;
  entry["step"] = step;
  reporters_.on_log(entry, step);
  logged_loss_sum_ = 0.0;
  last_logged_step_ = step;
}

template <class Model>
std::optional<double> TrainingLoop<Model>::evaluate_if_due(int64_t step) {
  if (args_.eval_strategy != IntervalStrategy::kSteps || step % run_.state.eval_steps != 0)
    return std::nullopt;
  nlohmann::json metrics = evaluator_.evaluate();  // collective: every rank evaluates its shard
  metrics.erase("eval_samples");
  metrics["epoch"] = run_.state.epoch;
  metrics["step"] = step;
  reporters_.on_evaluate(metrics, step);
  if (!args_.metric_for_best_model) return std::nullopt;
  std::string key = *args_.metric_for_best_model;
  if (!key.starts_with("eval_")) key = "eval_" + key;
  check(metrics.contains(key), "metric_for_best_model: evaluation reports no \"" + key + "\"");
  return metrics[key].get<double>();
}

template <class Model>
nlohmann::json TrainingLoop<Model>::finish() {
  const double train_runtime = seconds_since(train_start_);
  if (comm_.world_size() > 1) {
    double counts[2] = {double(samples_seen_), double(tokens_seen_)};
    comm_.all_reduce(std::span<double>(counts, 2), dist::ReduceOp::Sum);
    samples_seen_ = int64_t(counts[0]);
    tokens_seen_ = int64_t(counts[1]);
  }
  checkpointer_.finish_training();
  const nlohmann::json summary = train_summary(train_runtime);
  reporters_.on_train_end(summary, run_.state.global_step);
  complete_job_summary(train_runtime);
  nlohmann::json train_results = summary;
  train_results.erase("step");
  train_results["train_samples"] = int64_t(data_.examples.size());
  if (comm_.is_main()) {
    const fs::path output_dir = args_.output_dir;
    fs::create_directories(output_dir);
    run_.save_model(output_dir);
    run_.state.save(output_dir / "trainer_state.json");
    write_results_file(output_dir / "train_results.json", train_results);
    write_results_file(output_dir / "job_summary.json", job_.to_json());
    std::fprintf(stderr, "%s\n", job_.text().c_str());
  }
  return train_results;
}

template <class Model>
nlohmann::json TrainingLoop<Model>::train_summary(double train_runtime) const {
  const TrainerState& state = run_.state;
  const double steps = double(state.global_step - position_.first_step);
  nlohmann::json summary;
  summary["epoch"] = state.epoch;
  summary["step"] = state.global_step;
  summary["train_runtime"] = round_to(train_runtime, 4);
  summary["train_samples_per_second"] = round_to(double(samples_seen_) / train_runtime, 3);
  summary["train_steps_per_second"] = round_to(steps / train_runtime, 3);
  summary["train_tokens_per_second"] = round_to(double(tokens_seen_) / train_runtime, 3);
  summary["total_flos"] = 0;
  // As HF: the sum of this run's step losses over global_step (which counts resumed steps).
  summary["train_loss"] = run_loss_sum_ / double(std::max<int64_t>(1, state.global_step));
  return summary;
}

template <class Model>
void TrainingLoop<Model>::complete_job_summary(double train_runtime) {
  job_.wall_s = seconds_since(job_start_);
  job_.train_s = train_runtime;
  job_.steps = run_.state.global_step - position_.first_step;
  job_.samples = samples_seen_;
  job_.tokens = tokens_seen_;
  StepTimes per_step = step_times_.scaled(job_.steps > 0 ? 1.0 / double(job_.steps) : 0.0);
  if (comm_.world_size() > 1) {
    double parts[5] = {per_step.batch_s, per_step.forward_s, per_step.backward_s,
                       per_step.allreduce_wait_s, per_step.optimizer_s};
    comm_.all_reduce(std::span<double>(parts, 5), dist::ReduceOp::Average);
    per_step = {parts[0], parts[1], parts[2], parts[3], parts[4], 0.0};
  }
  const double step_s = job_.steps > 0 ? train_runtime / double(job_.steps) : 0.0;
  per_step.other_s = std::max(0.0, step_s - per_step.batch_s - per_step.forward_s - per_step.backward_s -
                                       per_step.allreduce_wait_s - per_step.optimizer_s);
  job_.step_times = per_step;
  job_.allreduce_exposed_s = per_step.allreduce_wait_s;
}

#define PRECIS_INSTANTIATE(Model, Config, family) template class TrainingLoop<Model>;
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
