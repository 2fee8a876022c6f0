#include "precis/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "precis/core/progress.h"
#include "precis/data/collator.h"
#include "precis/dist/gradient_buckets.h"
#include "precis/dist/host_threads.h"
#include "precis/dist/launch_environment.h"
#include "precis/hub/model_card.h"
#include "precis/model/seq2seq_family.h"
#include "precis/model/t5_init.h"
#include "precis/train/batch_sampler.h"
#include "precis/train/checkpointer.h"
#include "precis/train/checkpoints.h"
#include "precis/train/evaluator.h"
#include "precis/train/interrupt.h"
#include "precis/train/job_clock.h"
#include "precis/train/job_summary.h"
#include "precis/train/lr_schedule.h"
#include "precis/train/model_setup.h"
#include "precis/train/results_files.h"
#include "precis/train/stop_policy.h"
#include "precis/train/tensorboard_writer.h"
#include "precis/train/test_stop.h"
#include "precis/train/training_data.h"
#include "precis/train/training_run.h"

namespace precis::train {

namespace fs = std::filesystem;

namespace {

// report_to: HF 4.44's default ("all") and "tensorboard" write event files; "none" or a
// list of other integrations does not.
bool reports_to_tensorboard(const TrainingArguments& a) {
  auto it = a.ignored_options.find("report_to");
  if (it == a.ignored_options.end() || it->second.is_null()) return true;
  nlohmann::json names = it->second.is_array() ? it->second : nlohmann::json::array({it->second});
  for (const auto& n : names)
    if (n == "all" || n == "tensorboard") return true;
  return false;
}

struct LossSum {
  double sum = 0.0;
  int64_t steps = 0;
};

// Label tokens of the examples (what the loss averages over).
int64_t label_tokens(const std::vector<data::SummarizationExample>& data, const Batch& rows) {
  int64_t n = 0;
  for (int64_t i : rows)
    for (int32_t id : data[size_t(i)].labels) n += id != -100;
  return n;
}

// A blocking all-reduce of the whole gradient buffer (zeros), the median of a few: what the
// bucketed all-reduce would cost if nothing hid it.
double blocking_allreduce_seconds(dist::Communicator& comm, std::span<float> flat) {
  std::vector<float> zeros(flat.size(), 0.0f);
  std::vector<double> t;
  for (int i = 0; i < 3; ++i) {
    comm.barrier();
    auto start = JobClock::now();
    comm.all_reduce(std::span<float>(zeros), dist::ReduceOp::Sum);
    t.push_back(seconds_since(start));
  }
  std::sort(t.begin(), t.end());
  double median = t[t.size() / 2];
  comm.broadcast_value(median, 0);
  return median;
}

template <class Model>
void run_job(const TrainingArguments& a, dist::Communicator& comm, JobClock::time_point job_start) {
  const fs::path output_dir = a.output_dir;
  const bool main_rank = comm.is_main();
  const int world = comm.world_size(), rank = comm.rank();
  std::string warning = ignored_options_warning(a);
  if (!warning.empty() && main_rank) std::fprintf(stderr, "precis: warning: %s\n", warning.c_str());
  std::optional<fs::path> resume = find_resume_point(a, comm);
  TrainingRun<Model> run(a, comm, load_model_and_tokenizer<Model>(a, main_rank));
  const auto& config = run.model.config;
  nlohmann::json all_results = nlohmann::json::object();
  const Evaluator<Model> evaluator(a, comm, run);

  if (a.do_train) {
    const TrainingData data = load_training_data(a, world, *run.tokenizer, main_rank);
    const std::vector<data::SummarizationExample>& train = data.examples;
    const std::vector<GlobalBatch> first_epoch = data.global_batches(0);
    const int64_t batches_per_epoch = int64_t(first_epoch.size());
    check(batches_per_epoch > 0, "the training data makes no batch (dataloader_drop_last with too few examples?)");
    const int64_t updates_per_epoch = num_update_steps_per_epoch(batches_per_epoch, a);
    int64_t total_steps = total_train_steps(updates_per_epoch, a);
    const int64_t epoch_total_steps = total_steps;
    const int64_t epochs = num_train_epochs_to_run(updates_per_epoch, a);
    const int64_t warmup = warmup_steps(a, total_steps);
    const int64_t GA = a.gradient_accumulation_steps;
    run.state.max_steps = total_steps;
    run.state.num_train_epochs = epochs;
    run.state.train_batch_size = a.per_device_train_batch_size;
    run.state.logging_steps = interval_steps(a.logging_steps, total_steps);
    run.state.save_steps = interval_steps(a.save_steps, total_steps);
    run.state.eval_steps = interval_steps(a.eval_steps.value_or(a.logging_steps), total_steps);
    Checkpointer<Model> checkpointer(a, comm, run);
    if (resume) checkpointer.resume(*resume, explicit_resume_checkpoint(a));

    // One arena for the largest batch of any epoch. Fixed-size batches: the longest source
    // and target bound every batch's shape, whatever the order (with several ranks the arena
    // also holds the global batch's token ids, of which the shard is a row range). Token-budget
    // batches are the same groups every epoch (only their order changes): the largest, measured.
    auto batch_bytes = [&](int64_t B, int64_t S, int64_t T, int64_t collated_rows) {
      Arena measure = Arena::measuring();
      allocate_activations(config, measure, B, S, T, true);
      allocate_grad_scratch(config, measure, B, S, T);
      return measure.used() + size_t(16 * collated_rows * (S + T)) + 8 * Arena::kAlignment;
    };
    size_t per_batch_bytes = 0;
    if (a.max_tokens_per_batch > 0) {
      for (const GlobalBatch& g : first_epoch)
        for (const Batch& b : g.shards) {
          if (b.empty()) continue;
          std::vector<const data::SummarizationExample*> chunk;
          for (int64_t i : b) chunk.push_back(&train[size_t(i)]);
          auto [S, T] = data::padded_lengths(chunk, run.collator);
          per_batch_bytes = std::max(per_batch_bytes, batch_bytes(int64_t(b.size()), S, T, int64_t(b.size())));
        }
    } else {
      int64_t max_source = 1, max_target = 1;
      for (const auto& e : train) {
        max_source = std::max<int64_t>(max_source, int64_t(e.input_ids.size()));
        max_target = std::max<int64_t>(max_target, int64_t(e.labels.size()));
      }
      per_batch_bytes = batch_bytes(a.per_device_train_batch_size, max_source, max_target,
                                    a.per_device_train_batch_size * world);
    }
    Arena arena(per_batch_bytes);

    if (main_rank)
      std::fprintf(stderr,
                   "precis: %zu training examples, %lld batches per epoch, %lld optimizer steps (%lld epochs, "
                   "batch %lld x %d rank%s x accumulation %lld), warmup %lld%s\n",
                   train.size(), (long long)batches_per_epoch, (long long)total_steps, (long long)epochs,
                   (long long)a.per_device_train_batch_size, world, world == 1 ? "" : "s", (long long)GA,
                   (long long)warmup, a.zero_stage == 1 ? ", ZeRO-1" : "");
    const int64_t first_step = run.state.global_step;
    const int64_t epochs_done = first_step / updates_per_epoch;
    const int64_t micro_batches_to_skip = (first_step % updates_per_epoch) * GA;

    // Data parallelism: the gradient all-reduce in buckets, started as the backward finishes
    // layers (plain DP), or the reduce-scatter of ZeRO-1 inside its optimizer step.
    std::unique_ptr<dist::GradientAllReduce> grad_sync;
    JobSummary job;
    job.world_size = world;
    job.hosts = comm.hosts();
    job.zero_stage = int(a.zero_stage);
    job.price_per_hour = a.price_per_hour;
    job.optimizer_state_bytes_per_rank = run.optimizer_state_bytes();
    if (world > 1 && !run.sharded) {
      const int64_t bucket_mib = a.ddp_bucket_cap_mb.value_or(25);
      grad_sync = std::make_unique<dist::GradientAllReduce>(config, run.grads, comm, bucket_mib << 20);
      job.allreduce_blocking_s = blocking_allreduce_seconds(comm, grad_sync->flat());
      job.gradient_buckets = int64_t(grad_sync->buckets().size());
    }
    double exposed_allreduce_s = 0;

    LossSum logged;
    int64_t last_logged_step = first_step, samples_seen = 0, tokens_seen = 0;
    double step_loss = 0.0, run_loss_sum = 0.0;
    int64_t micro_in_step = 0;
    int64_t total_batched = epochs_done * batches_per_epoch + micro_batches_to_skip;
    const auto train_start = JobClock::now();
    std::optional<Progress> progress;
    if (main_rank) progress.emplace("train", total_steps - first_step, "steps");
    // With a time budget and no max_steps, the schedule ends where the budget does: the
    // horizon is estimated from the measured step rate after 100 steps, then refined every
    // tenth of the way. With several ranks, rank 0 decides (horizon and stop) for all.
    const bool time_horizon = a.max_train_time_s > 0 && a.max_steps <= 0;
    int64_t next_horizon_estimate = 100;
    std::ofstream train_log;
    if (main_rank) {
      fs::create_directories(output_dir);
      train_log.open(output_dir / "train_log.jsonl", std::ios::app);
      check(bool(train_log), (output_dir / "train_log.jsonl").string() + ": cannot open for writing");
    }
    // TensorBoard event files as HF's TensorBoardCallback writes them (report_to's 4.44 default
    // "all" includes it), so the Hub shows the training-metrics tab.
    std::optional<TensorBoardWriter> tensorboard;
    if (main_rank && reports_to_tensorboard(a)) {
      tensorboard.emplace(a.logging_dir ? fs::path(*a.logging_dir) : default_logging_dir(output_dir));
      tensorboard->add_text("args", to_json(a).dump(2));
      tensorboard->add_text("model_config", config.to_json().dump(2));
    }
    StopPolicy stop_policy(a, comm, job_start);
    StopDecision decision;
    stop_policy.watch_for_interrupts();
    zero_grads(config, run.grads);
    for (int64_t epoch = epochs_done; epoch < epochs && !decision.stop; ++epoch) {
      std::vector<GlobalBatch> batches = data.global_batches(epoch);
      const int64_t steps_in_epoch = int64_t(batches.size());
      int64_t start_batch = epoch == epochs_done ? micro_batches_to_skip : 0;
      for (int64_t b = start_batch; b < steps_in_epoch && !decision.stop; ++b) {
        ++total_batched;
        const bool update = total_batched % GA == 0 || (steps_in_epoch <= GA && b + 1 == steps_in_epoch);
        arena.reset();
        const GlobalBatch& global = batches[size_t(b)];
        const Batch& mine = global.shards[size_t(rank)];
        // The loss is the mean over the global micro-batch's label tokens (1 rank x 2b and
        // 2 ranks x b give the same gradient); HF 4.44 averages per-rank means instead.
        int64_t global_tokens = 0;
        for (const Batch& shard : global.shards) global_tokens += label_tokens(train, shard);
        if (!mine.empty()) {
          Seq2SeqBatch batch;
          BartDropoutContext dropout{true, uint64_t(a.seed), uint64_t(run.state.global_step), uint32_t(micro_in_step)};
          std::vector<const data::SummarizationExample*> chunk;
          if (world > 1 && global.shared_padding) {
            // The shard is rows of the global batch: padded as the global batch, with the
            // global batch's dropout masks for those rows.
            for (const Batch& shard : global.shards)
              for (int64_t i : shard) chunk.push_back(&train[size_t(i)]);
            Seq2SeqBatch all = data::collate(chunk, run.collator, arena);
            const int64_t first = global.first_row(rank), rows = int64_t(mine.size());
            batch = {all.input_ids.slice(first, first + rows), all.attention_mask.slice(first, first + rows),
                     all.decoder_input_ids.slice(first, first + rows), all.labels.slice(first, first + rows)};
            dropout.first_row = uint64_t(first);
            dropout.rows = uint64_t(rows);
            chunk.assign(chunk.begin() + first, chunk.begin() + first + rows);
          } else {
            for (int64_t i : mine) chunk.push_back(&train[size_t(i)]);
            batch = data::collate(chunk, run.collator, arena);
            // Token-budget shards are micro-batches of their own: distinct masks per rank.
            dropout.micro_batch = uint32_t(micro_in_step * world + rank);
          }
          const int64_t B = batch.batch_size(), S = batch.input_ids.size(1), T = batch.labels.size(1);
          auto acts = allocate_activations(config, arena, B, S, T, true);
          auto scratch = allocate_grad_scratch(config, arena, B, S, T);
          if (grad_sync && update) scratch.stage_done = [&](int stage) { grad_sync->stage_done(stage); };
          model_forward(config, run.model.params, batch, acts, dropout);
          // The micro-batch loss: LabelSmoother or the model's mean cross-entropy, divided by
          // the accumulation steps (accelerator.backward in HF 4.44).
          CrossEntropyResult ce = model_loss(batch, acts, float(a.label_smoothing_factor));
          check(ce.counted > 0 || world > 1, "a training batch has no label tokens (all -100)");
          check(ce.counted == label_tokens(train, mine), "internal: label tokens counted differently");
          step_loss += ce.loss_sum / double(global_tokens) / double(GA);
          model_backward(config, run.model.params, batch, acts, dropout, float(a.label_smoothing_factor),
                        float(1.0 / (double(global_tokens) * double(GA))), run.grads, scratch);
          samples_seen += B;
          for (const auto* e : chunk) tokens_seen += int64_t(e->input_ids.size() + e->labels.size());
        }
        check(global_tokens > 0, "a training batch has no label tokens (all -100)");
        stop_here_for_test("micro", run.state.global_step, micro_in_step);  // a test hook; see test_stop.h
        ++micro_in_step;
        if (!update) continue;

        const double lr = learning_rate_at(a, run.state.global_step, total_steps, warmup);
        const OptimizerStepResult update_result = run.optimizer_step(lr, grad_sync.get());
        const double grad_norm = update_result.grad_norm;
        exposed_allreduce_s += update_result.exposed_allreduce_s;
        if (world > 1) comm.all_reduce(std::span<double>(&step_loss, 1), dist::ReduceOp::Sum);
        run.state.global_step += 1;
        run.state.epoch = double(epoch) + double(b + 1) / double(steps_in_epoch);
        logged.sum += step_loss;
        logged.steps += 1;
        run_loss_sum += step_loss;
        const double logged_step_loss = step_loss;
        if (!std::isfinite(step_loss) && main_rank)
          std::fprintf(stderr, "precis: warning: step %lld has a non-finite loss\n", (long long)run.state.global_step);
        char note[96];
        std::snprintf(note, sizeof note, "loss %.4f lr %.3g", step_loss, lr);
        if (progress) progress->advance(1, note);
        step_loss = 0.0;
        micro_in_step = 0;

        const int64_t step = run.state.global_step;
        std::optional<double> evaluated_metric;  // metric_for_best_model, when this step evaluated
        if (time_horizon && step - first_step >= next_horizon_estimate) {
          const double per_step = seconds_since(train_start) / double(step - first_step);
          const double left = a.max_train_time_s - seconds_since(job_start);
          int64_t horizon = time_budget_horizon(step, per_step, left, epoch_total_steps);
          if (world > 1) comm.broadcast_value(horizon, 0);
          if (next_horizon_estimate == 100 && main_rank)
            std::fprintf(stderr, "precis: at %.1f ms per step the time budget allows %lld steps; the lr schedule ends there\n",
                         per_step * 1e3, (long long)horizon);
          total_steps = run.state.max_steps = horizon;
          if (progress) progress->set_total(total_steps - first_step);
          next_horizon_estimate = step - first_step + std::max<int64_t>(100, (total_steps - first_step) / 10);
        }
        // Log point: every step, unrounded, in output_dir/train_log.jsonl (rank 0).
        if (main_rank) {
          nlohmann::json line = {{"step", step}, {"epoch", run.state.epoch}, {"loss", logged_step_loss},
                                 {"grad_norm", grad_norm}, {"learning_rate", lr},
                                 {"elapsed_s", seconds_since(train_start)}};
          train_log << line.dump() << "\n" << std::flush;
        }
        const bool log_now = (a.logging_strategy == IntervalStrategy::kSteps && step % run.state.logging_steps == 0) ||
                             (a.logging_first_step && step == 1);
        if (log_now) {
          // Log point: HF's logging_steps entries (every rank keeps the history; rank 0 prints).
          nlohmann::json entry;
          entry["loss"] = round_to(logged.sum / double(step - last_logged_step), 4);
          entry["grad_norm"] = grad_norm;
          entry["learning_rate"] = learning_rate_at(a, step, total_steps, warmup);
          entry["epoch"] = run.state.epoch;
          entry["step"] = step;
          run.state.log_history.push_back(entry);
          if (tensorboard) tensorboard->log(entry, step);
          if (!isatty(2) && main_rank) std::fprintf(stderr, "%s\n", entry.dump().c_str());
          logged = {};
          last_logged_step = step;
        }
        if (a.eval_strategy == IntervalStrategy::kSteps && step % run.state.eval_steps == 0) {
          // Log point: evaluation metrics (collective: every rank evaluates its shard).
          nlohmann::json metrics = evaluator.evaluate();
          metrics.erase("eval_samples");
          metrics["epoch"] = run.state.epoch;
          metrics["step"] = step;
          run.state.log_history.push_back(metrics);
          if (tensorboard) tensorboard->log(metrics, step);
          if (a.metric_for_best_model) {
            std::string key = *a.metric_for_best_model;
            if (!key.starts_with("eval_")) key = "eval_" + key;
            check(metrics.contains(key), "metric_for_best_model: evaluation reports no \"" + key + "\"");
            evaluated_metric = metrics[key].get<double>();
          }
        }
        decision = stop_policy.after_step(step, total_steps);
        if (checkpointer.due(step, decision)) checkpointer.save_step(step, evaluated_metric);
      }
      if (a.save_strategy == IntervalStrategy::kEpoch && !decision.stop) checkpointer.save();
    }
    if (progress) progress->finish();
    if (decision.interrupted) {
      // The run is not finished: no final model, evaluation or card; a rerun resumes.
      if (main_rank)
        std::fprintf(stderr, "precis: %s: stopped at step %lld and saved %s; run the same command again to resume\n",
                     InterruptRequest::signal_name(), (long long)run.state.global_step,
                     checkpointer.last_saved()->string().c_str());
      return;
    }
    const double train_runtime = seconds_since(train_start);
    if (world > 1) {
      double counts[2] = {double(samples_seen), double(tokens_seen)};
      comm.all_reduce(std::span<double>(counts, 2), dist::ReduceOp::Sum);
      samples_seen = int64_t(counts[0]);
      tokens_seen = int64_t(counts[1]);
    }
    checkpointer.finish_training();
    nlohmann::json summary;
    summary["epoch"] = run.state.epoch;
    summary["step"] = run.state.global_step;
    summary["train_runtime"] = round_to(train_runtime, 4);
    summary["train_samples_per_second"] = round_to(double(samples_seen) / train_runtime, 3);
    summary["train_steps_per_second"] = round_to(double(run.state.global_step - first_step) / train_runtime, 3);
    summary["train_tokens_per_second"] = round_to(double(tokens_seen) / train_runtime, 3);
    summary["total_flos"] = 0;
    // As HF: the sum of this run's step losses over global_step (which counts resumed steps).
    summary["train_loss"] = run_loss_sum / double(std::max<int64_t>(1, run.state.global_step));
    run.state.log_history.push_back(summary);
    if (tensorboard) tensorboard->log(summary, run.state.global_step);

    job.wall_s = seconds_since(job_start);
    job.train_s = train_runtime;
    job.steps = run.state.global_step - first_step;
    job.samples = samples_seen;
    job.tokens = tokens_seen;
    job.allreduce_exposed_s = job.steps > 0 ? exposed_allreduce_s / double(job.steps) : 0.0;
    if (world > 1) {
      // The slowest rank's wait is what the step paid.
      comm.all_reduce(std::span<double>(&job.allreduce_exposed_s, 1), dist::ReduceOp::Average);
    }
    if (main_rank) {
      fs::create_directories(output_dir);
      run.save_model(output_dir);
      run.state.save(output_dir / "trainer_state.json");
      nlohmann::json train_results = summary;
      train_results.erase("step");
      train_results["train_samples"] = int64_t(train.size());
      write_results_file(output_dir / "train_results.json", train_results);
      all_results.update(train_results);
      write_results_file(output_dir / "job_summary.json", job.to_json());
      std::fprintf(stderr, "%s\n", job.text().c_str());
    }
  }

  if (a.do_eval) all_results.update(evaluator.evaluate_and_report());
  if (a.do_predict) all_results.update(evaluator.predict_and_report());
  if (!main_rank) return;
  if (!output_dir.empty() && !all_results.empty()) write_results_file(output_dir / "all_results.json", all_results);
  // The model card, as Trainer.create_model_card at the end of run_summarization.
  if (a.do_train) {
    fs::path card = hub::write_model_card(output_dir, {});
    std::fprintf(stderr, "precis: model card %s\n", card.string().c_str());
  }
}

// The model family: model_name_or_path's config.json, or config_name, says T5 or BART.
void run_job(const TrainingArguments& a, dist::Communicator& comm, JobClock::time_point job_start) {
  const bool t5 = a.model_name_or_path.empty() ? a.config_name && names_t5_config(*a.config_name)
                                               : model_type_of(a.model_name_or_path) == "t5";
  validate_job(a, t5 ? "t5" : "bart");
  if (t5) return run_job<T5Model>(a, comm, job_start);
  return run_job<BartModel>(a, comm, job_start);
}

}  // namespace

void run_training_job(const TrainingArguments& a) {
  const auto job_start = JobClock::now();
  // Under mpirun / srun with more than one process: data parallelism over MPI.
  std::unique_ptr<dist::Communicator> comm = dist::make_communicator(double(a.ddp_timeout.value_or(1800)));
  if (comm->world_size() == 1) return run_job(a, *comm, job_start);
  if (int threads = dist::share_host_cores(comm->local_size()); threads > 0 && comm->local_rank() == 0)
    std::fprintf(stderr, "precis: %d ranks share this host: %d OpenMP thread%s each (OMP_NUM_THREADS overrides)\n",
                 comm->local_size(), threads, threads == 1 ? "" : "s");
  // Every rank's error reaches the user, named by its rank; then the whole job ends, so no
  // rank waits forever in a collective for one that has given up.
  try {
    run_job(a, *comm, job_start);
    // Wait for rank 0's last writes here, polling gently, rather than in MPI_Finalize, whose
    // busy polling would take the core rank 0 is saving with.
    comm->barrier();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "precis: rank %d: error: %s\n", comm->rank(), e.what());
    std::fflush(stderr);
    // Ranks usually fail at the same point (a missing file, a bad option): a moment lets the
    // others print their own error before the abort ends them all.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    comm->abort(1);
  }
}

}  // namespace precis::train
