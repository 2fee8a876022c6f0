// Saving and resuming a training run through checkpoint-N/ folders (checkpoints.h), as
// Trainer._save_checkpoint and _load_from_checkpoint do. A checkpoint is written through an
// AtomicDirectory: it appears whole or not at all, and a failed save leaves every earlier one
// as it was. The best model (metric_for_best_model) is tracked here because HF 4.44 decides it
// as it saves: at a checkpoint saved on a step that also evaluated, among those checkpoints
// only. Model: a family's (model/families.h; instantiated for each).
#pragma once

#include <filesystem>
#include <optional>

#include "precis/dist/communicator.h"
#include "precis/train/stop_policy.h"
#include "precis/train/training_arguments.h"
#include "precis/train/training_run.h"

namespace precis::train {

// Where checkpoint-N/ folders live: --checkpoint_dir, else output_dir.
std::filesystem::path checkpoint_root(const TrainingArguments& args);

// Where to resume from: an explicit resume_from_checkpoint, or the last complete checkpoint in
// checkpoint_root (output_dir unless --checkpoint_dir) (HF's get_last_checkpoint), unless overwrite_output_dir. Decided by rank 0 alone
// (ranks may not look at a directory that rank 0 is writing) and told to the others. Removes
// the staging folders a killed run left.
std::optional<std::filesystem::path> find_resume_point(const TrainingArguments& args,
                                                       dist::Communicator& comm);

// resume_from_checkpoint names a path (not "true", which means output_dir's last).
bool explicit_resume_checkpoint(const TrainingArguments& args);

template <class Model>
class Checkpointer {
 public:
  Checkpointer(const TrainingArguments& args, dist::Communicator& comm, TrainingRun<Model>& run);

  // Resumes from `checkpoint`; when it cannot be loaded (a corrupt or truncated file) and it
  // was found rather than named, from the next older complete checkpoint, with a warning.
  // Every rank tries the same checkpoints and they agree on each outcome.
  void resume(const std::filesystem::path& checkpoint, bool explicit_path);

  // Whether the step that just ended saves: every save_steps, on a signal, and at the end of
  // the time budget.
  bool due(int64_t step, const StopDecision& decision) const;
  // checkpoint-<step>, after updating the best model when this step evaluated (its
  // metric_for_best_model value in `evaluated_metric`). Collective with ZeRO-1.
  void save_step(int64_t step, std::optional<double> evaluated_metric);
  // checkpoint-<global_step> at an epoch's end (save_strategy epoch). Collective with ZeRO-1.
  void save();
  // The last checkpoint save_step wrote.
  const std::optional<std::filesystem::path>& last_saved() const { return last_saved_; }

  // After the last step: with save_total_limit 1 only the best checkpoint is kept (as HF 4.44
  // does); with load_best_model_at_end the best model is loaded (collective).
  void finish_training();

 private:
  // Everything is read before anything is replaced: a checkpoint that fails to load leaves the
  // run as it was, so that an older one can be tried.
  void load(const std::filesystem::path& checkpoint);
  std::filesystem::path checkpoint_dir(int64_t step) const;

  const TrainingArguments& args_;
  dist::Communicator& comm_;
  TrainingRun<Model>& run_;
  std::filesystem::path output_dir_;
  std::optional<std::filesystem::path> last_saved_;
};

}  // namespace precis::train
