#include "precis/train/checkpointer.h"

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/json_input.h"
#include "precis/model/families.h"
#include "precis/train/checkpoints.h"
#include "precis/train/test_stop.h"

namespace precis::train {

namespace fs = std::filesystem;

namespace {

bool means_false(const std::string& r) { return r == "false" || r == "False"; }
bool means_true(const std::string& r) { return r == "true" || r == "True"; }

// Rank 0's part of find_resume_point.
std::optional<fs::path> resume_point_in(const TrainingArguments& a, const fs::path& output_dir) {
  if (int n = remove_abandoned_staging(output_dir))
    std::fprintf(stderr,
                 "precis: removed %d unfinished checkpoint folder%s a stopped run left in %s\n", n,
                 n == 1 ? "" : "s", output_dir.string().c_str());
  if (a.resume_from_checkpoint && !means_false(*a.resume_from_checkpoint)) {
    const std::string& r = *a.resume_from_checkpoint;
    if (means_true(r)) {
      std::optional<fs::path> last = last_checkpoint(output_dir);
      check(last.has_value(),
            "resume_from_checkpoint: no valid checkpoint found in " + output_dir.string());
      return last;
    }
    check(fs::is_directory(r), "resume_from_checkpoint: " + r + " is not a directory");
    return fs::path(r);
  }
  if (a.overwrite_output_dir || !fs::is_directory(output_dir)) return std::nullopt;
  std::optional<fs::path> last = last_checkpoint(output_dir);
  if (!last && !fs::is_empty(output_dir) && !list_checkpoints(output_dir).empty())
    throw Error("Output directory (" + output_dir.string() +
                ") holds only incomplete checkpoints. Use --overwrite_output_dir to start again.");
  if (!last && !fs::is_empty(output_dir) && fs::exists(output_dir / "trainer_state.json"))
    throw Error("Output directory (" + output_dir.string() +
                ") already exists and is not empty. Use --overwrite_output_dir to overcome.");
  return last;
}

}  // namespace

fs::path checkpoint_root(const TrainingArguments& a) {
  return a.checkpoint_dir ? fs::path(*a.checkpoint_dir) : fs::path(a.output_dir);
}

std::optional<fs::path> find_resume_point(const TrainingArguments& a, dist::Communicator& comm) {
  std::optional<fs::path> resume;
  if (a.do_train && comm.is_main()) resume = resume_point_in(a, checkpoint_root(a));
  if (comm.world_size() > 1) {
    std::string path = comm.all_gather_bytes(resume ? resume->string() : std::string())[0];
    resume = path.empty() ? std::nullopt : std::optional<fs::path>(path);
  }
  return resume;
}

bool explicit_resume_checkpoint(const TrainingArguments& a) {
  if (!a.resume_from_checkpoint) return false;
  const std::string& r = *a.resume_from_checkpoint;
  return !means_false(r) && !means_true(r);
}

template <class Model>
Checkpointer<Model>::Checkpointer(const TrainingArguments& a, dist::Communicator& comm,
                                  TrainingRun<Model>& run)
    : args_(a), comm_(comm), run_(run), output_dir_(checkpoint_root(a)) {}

template <class Model>
fs::path Checkpointer<Model>::checkpoint_dir(int64_t step) const {
  return output_dir_ / (kCheckpointPrefix + std::to_string(step));
}

template <class Model>
void Checkpointer<Model>::resume(const fs::path& checkpoint, bool explicit_path) {
  std::vector<fs::path> candidates = {checkpoint};
  if (!explicit_path) {
    std::vector<fs::path> all = list_checkpoints(checkpoint.parent_path());
    for (auto it = all.rbegin(); it != all.rend(); ++it)
      if (*it != checkpoint && checkpoint_step_of(*it) < checkpoint_step_of(checkpoint) &&
          is_complete_checkpoint(*it))
        candidates.push_back(*it);
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::string error;
    try {
      load(candidates[i]);
    } catch (const Error& e) {
      error = e.what();
    }
    double failed = error.empty() ? 0.0 : 1.0;
    if (comm_.world_size() > 1)
      comm_.all_reduce(std::span<double>(&failed, 1), dist::ReduceOp::Sum);
    if (failed == 0) return;
    if (explicit_path || i + 1 == candidates.size())
      throw Error(error.empty() ? candidates[i].string() + ": another rank could not load it"
                                : error);
    if (comm_.is_main())
      std::fprintf(
          stderr,
          "precis: warning: cannot resume from %s (%s); resuming from the older %s instead\n",
          candidates[i].string().c_str(),
          error.empty() ? "another rank could not load it" : error.c_str(),
          candidates[i + 1].filename().string().c_str());
  }
}

template <class Model>
void Checkpointer<Model>::load(const fs::path& checkpoint) {
  using Config = typename TrainingRun<Model>::Config;
  Model loaded = Model::load(checkpoint);
  check(loaded.config.d_model == run_.model.config.d_model &&
            loaded.config.vocab_size == run_.model.config.vocab_size,
        checkpoint.string() + ": the checkpoint's model differs from " + args_.model_name_or_path);
  TrainerState loaded_state = TrainerState::load(checkpoint / "trainer_state.json");
  const AdamWSettings settings = adamw_settings(args_);
  if (run_.sharded) {
    auto loaded_optimizer =
        std::make_unique<ShardedAdamW<Config>>(loaded.config, settings, loaded.params, comm_);
    loaded_optimizer->load(checkpoint / "optimizer.safetensors");
    run_.sharded = std::move(loaded_optimizer);
  } else {
    run_.optimizer.reset();  // a fresh run's zeros: freed before the loaded state is allocated
    try {
      auto loaded_optimizer = std::make_unique<AdamW<Config>>(loaded.config, settings);
      loaded_optimizer->load(checkpoint / "optimizer.safetensors");
      run_.optimizer = std::move(loaded_optimizer);
    } catch (...) {
      run_.optimizer = std::make_unique<AdamW<Config>>(run_.model.config, settings);
      throw;
    }
  }
  run_.model = std::move(loaded);
  run_.state = std::move(loaded_state);
  // --fp16: the loss scale where the run left it (HF's scaler.pt), so the resumed steps scale,
  // skip and grow as the straight run's did.
  if (run_.scaler && fs::exists(checkpoint / "scaler.json")) {
    const nlohmann::json s = read_json_file(checkpoint / "scaler.json");
    try {
      run_.scaler->restore(s.at("scale").get<double>(), s.at("growth_tracker").get<int64_t>(),
                           s.at("skipped_steps").get<int64_t>());
    } catch (const nlohmann::json::exception& e) {
      throw Error((checkpoint / "scaler.json").string() +
                  ": expected numbers scale, growth_tracker and skipped_steps (" + e.what() + ")");
    }
  }
  run_.refresh_compute();
  if (comm_.is_main())
    std::fprintf(stderr, "precis: resuming from %s\n", checkpoint.string().c_str());
}

template <class Model>
bool Checkpointer<Model>::due(int64_t step, const StopDecision& decision) const {
  const bool every_save_steps =
      args_.save_strategy == IntervalStrategy::kSteps && step % run_.state.save_steps == 0;
  const bool out_of_time =
      decision.stop && args_.save_strategy != IntervalStrategy::kNo && args_.max_train_time_s > 0;
  return every_save_steps || decision.interrupted || out_of_time;
}

template <class Model>
void Checkpointer<Model>::save_step(int64_t step, std::optional<double> evaluated_metric) {
  TrainerState& state = run_.state;
  if (evaluated_metric) {
    const bool greater = args_.greater_is_better.value_or(false);
    const double value = *evaluated_metric;
    if (!state.best_metric || (greater ? value > *state.best_metric : value < *state.best_metric)) {
      state.best_metric = value;
      state.best_model_checkpoint = checkpoint_dir(step).string();
    }
  }
  save();
  last_saved_ = checkpoint_dir(step);
}

template <class Model>
void Checkpointer<Model>::save() {
  const fs::path final_dir = checkpoint_dir(run_.state.global_step);
  if (!comm_.is_main()) {
    if (run_.sharded) run_.sharded->save(fs::path());  // rank 0 gathers the moments
    return;
  }
  try {
    fs::create_directories(output_dir_);  // --checkpoint_dir need not exist yet
    AtomicDirectory dir(final_dir);
    run_.save_model(dir.staging());
    if (run_.sharded)
      run_.sharded->save(dir.staging() / "optimizer.safetensors");
    else
      run_.optimizer->save(dir.staging() / "optimizer.safetensors");
    if (run_.scaler)
      write_file_atomic(dir.staging() / "scaler.json",
                        nlohmann::json{{"scale", run_.scaler->scale()},
                                       {"growth_tracker", run_.scaler->growth_tracker()},
                                       {"skipped_steps", run_.scaler->skipped_steps()}}
                                .dump(2) + "\n");
    stop_here_for_test("save", run_.state.global_step);  // a test hook; see test_stop.h
    run_.state.save(dir.staging() / "trainer_state.json");
    dir.commit();
  } catch (const Error& e) {
    // A full disk, say: the staging folder is gone, every earlier checkpoint untouched.
    std::optional<fs::path> last = last_checkpoint(output_dir_);
    throw Error("cannot save " + final_dir.string() + ": " + e.what() +
                (last ? "; the last complete checkpoint, " + last->string() +
                            ", is intact and a rerun resumes from it"
                      : "; there is no earlier checkpoint"));
  }
  const std::optional<std::string>& best = run_.state.best_model_checkpoint;
  rotate_checkpoints(output_dir_, args_.save_total_limit.value_or(0),
                     best ? std::optional<fs::path>(*best) : std::nullopt);
}

template <class Model>
void Checkpointer<Model>::finish_training() {
  const std::optional<std::string>& best = run_.state.best_model_checkpoint;
  if (comm_.is_main() && best && args_.save_total_limit.value_or(0) == 1)
    keep_only_best_checkpoint(output_dir_, *best);
  if (args_.load_best_model_at_end && best) {
    if (comm_.is_main())
      std::fprintf(stderr, "precis: loading the best model from %s\n", best->c_str());
    if (comm_.world_size() > 1) comm_.barrier();  // rank 0 has written it
    run_.model = Model::load(*best);
  }
}

#define PRECIS_INSTANTIATE(Model, Config, family) template class Checkpointer<Model>;
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
