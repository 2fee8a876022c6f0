#include "precis/train/reporters.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "precis/core/error.h"

namespace precis::train {

namespace fs = std::filesystem;

void LogHistoryReporter::on_log(const nlohmann::json& logs, int64_t) {
  state_.log_history.push_back(logs);
}
void LogHistoryReporter::on_evaluate(const nlohmann::json& metrics, int64_t) {
  state_.log_history.push_back(metrics);
}
void LogHistoryReporter::on_train_end(const nlohmann::json& summary, int64_t) {
  state_.log_history.push_back(summary);
}

TensorBoardReporter::TensorBoardReporter(const fs::path& log_dir, const TrainingArguments& args,
                                         const nlohmann::json& model_config)
    : writer_(log_dir, args.host_name) {
  writer_.add_text("args", to_json(args).dump(2));
  writer_.add_text("model_config", model_config.dump(2));
}
void TensorBoardReporter::on_log(const nlohmann::json& logs, int64_t step) {
  writer_.log(logs, step);
}
void TensorBoardReporter::on_evaluate(const nlohmann::json& metrics, int64_t step) {
  writer_.log(metrics, step);
}
void TensorBoardReporter::on_train_end(const nlohmann::json& summary, int64_t step) {
  writer_.log(summary, step);
}

ConsoleReporter::ConsoleReporter(int64_t first_step, int64_t total_steps)
    : first_step_(first_step), progress_("train", total_steps - first_step, "steps") {}

void ConsoleReporter::on_step_end(const StepRecord& r) {
  if (!std::isfinite(r.loss))
    std::fprintf(stderr, "precis: warning: step %lld has a non-finite loss\n", (long long)r.step);
  char note[96];
  std::snprintf(note, sizeof note, "loss %.4f lr %.3g", r.loss, r.learning_rate);
  progress_.advance(1, note);
  if (!r.horizon) return;
  if (r.horizon->first)
    std::fprintf(stderr,
                 "precis: at %.1f ms per step the time budget allows %lld steps; the lr schedule "
                 "ends there\n",
                 r.horizon->seconds_per_step * 1e3, (long long)r.horizon->total_steps);
  progress_.set_total(r.horizon->total_steps - first_step_);
}

// Where stderr is not a terminal (a log file), each logging step as a line of JSON too.
void ConsoleReporter::on_log(const nlohmann::json& logs, int64_t) {
  if (!isatty(2)) std::fprintf(stderr, "%s\n", logs.dump().c_str());
}

void ConsoleReporter::on_loop_end() { progress_.finish(); }

TrainLogReporter::TrainLogReporter(const fs::path& output_dir) {
  fs::create_directories(output_dir);
  file_.open(output_dir / "train_log.jsonl", std::ios::app);
  check(bool(file_), (output_dir / "train_log.jsonl").string() + ": cannot open for writing");
}

void TrainLogReporter::on_step_end(const StepRecord& r) {
  nlohmann::json line = {{"step", r.step},
                         {"epoch", r.epoch},
                         {"loss", r.loss},
                         {"grad_norm", r.grad_norm},
                         {"learning_rate", r.learning_rate},
                         {"elapsed_s", r.elapsed_s}};
  // Flushed every step: a killed run's log goes as far as its last step.
  file_ << line.dump() << "\n" << std::flush;
}

bool reports_to_tensorboard(const TrainingArguments& a) {
  auto it = a.ignored_options.find("report_to");
  // Not given: 4.44's "all" (TensorBoard where it is installed), 5's "none".
  if (it == a.ignored_options.end() || it->second.is_null())
    return parse_hf_semantics(a.hf_semantics, "--hf_semantics") == HfSemantics::kV4_44;
  nlohmann::json names = it->second.is_array() ? it->second : nlohmann::json::array({it->second});
  for (const auto& n : names)
    if (n == "all" || n == "tensorboard") return true;
  return false;
}

CallbackHandler make_reporters(const TrainingArguments& a, bool main_rank, TrainerState& state,
                               int64_t first_step, int64_t total_steps,
                               const nlohmann::json& model_config) {
  CallbackHandler reporters;
  // Every rank keeps the history, as it keeps the rest of TrainerState; rank 0 saves it.
  reporters.add(std::make_unique<LogHistoryReporter>(state));
  if (!main_rank) return reporters;
  auto console = std::make_unique<ConsoleReporter>(first_step, total_steps);
  auto train_log = std::make_unique<TrainLogReporter>(fs::path(a.output_dir));
  if (reports_to_tensorboard(a)) {
    const fs::path log_dir =
        a.logging_dir ? fs::path(*a.logging_dir)
                      : default_logging_dir(a.output_dir, std::chrono::system_clock::now(), a.host_name);
    reporters.add(std::make_unique<TensorBoardReporter>(log_dir, a, model_config));
  }
  reporters.add(std::move(console));
  reporters.add(std::move(train_log));
  if (a.embedder_reporter) reporters.add(a.embedder_reporter(first_step, total_steps));
  return reporters;
}

}  // namespace precis::train
