// The records a training run keeps, each a TrainerCallback (trainer_callback.h):
//   LogHistoryReporter  trainer_state's log_history: logging steps, evaluations, the summary
//                       (every rank keeps it; rank 0 saves it with each checkpoint);
//   TensorBoardReporter the same entries as TensorBoardCallback writes them (report_to's HF 4.44
//                       default "all" includes it), so the Hub shows the training-metrics tab;
//   ConsoleReporter     the progress line, the logging steps on stderr when it is not a
//                       terminal, and warnings about the run (a non-finite loss, the horizon);
//   TrainLogReporter    output_dir/train_log.jsonl, one line per step, unrounded.
// Only rank 0 has the last three.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "precis/core/progress.h"
#include "precis/train/tensorboard_writer.h"
#include "precis/train/trainer_callback.h"
#include "precis/train/trainer_state.h"
#include "precis/train/training_arguments.h"

namespace precis::train {

class LogHistoryReporter final : public TrainerCallback {
 public:
  explicit LogHistoryReporter(TrainerState& state) : state_(state) {}
  void on_log(const nlohmann::json& logs, int64_t step) override;
  void on_evaluate(const nlohmann::json& metrics, int64_t step) override;
  void on_train_end(const nlohmann::json& summary, int64_t step) override;

 private:
  TrainerState& state_;
};

class TensorBoardReporter final : public TrainerCallback {
 public:
  // Starts the event file with the arguments and the model config as text, as HF does.
  TensorBoardReporter(const std::filesystem::path& log_dir, const TrainingArguments& args,
                      const nlohmann::json& model_config);
  void on_log(const nlohmann::json& logs, int64_t step) override;
  void on_evaluate(const nlohmann::json& metrics, int64_t step) override;
  void on_train_end(const nlohmann::json& summary, int64_t step) override;

 private:
  TensorBoardWriter writer_;
};

class ConsoleReporter final : public TrainerCallback {
 public:
  // Steps counted from `first_step` (a resumed run's) to `total_steps`.
  ConsoleReporter(int64_t first_step, int64_t total_steps);
  void on_step_end(const StepRecord& record) override;
  void on_log(const nlohmann::json& logs, int64_t step) override;
  void on_loop_end() override;

 private:
  int64_t first_step_;
  Progress progress_;
};

class TrainLogReporter final : public TrainerCallback {
 public:
  // Appends to output_dir/train_log.jsonl (a resumed run goes on where it was).
  explicit TrainLogReporter(const std::filesystem::path& output_dir);
  void on_step_end(const StepRecord& record) override;

 private:
  std::ofstream file_;
};

// report_to: HF 4.44's default ("all") and "tensorboard" write event files; 5's default ("none")
// and a list of other integrations do not.
bool reports_to_tensorboard(const TrainingArguments& args);

// This rank's reporters, in the order their records are written. Rank 0's start their files
// here: train_log.jsonl, then the TensorBoard event file.
CallbackHandler make_reporters(const TrainingArguments& args, bool main_rank, TrainerState& state,
                               int64_t first_step, int64_t total_steps,
                               const nlohmann::json& model_config);

}  // namespace precis::train
