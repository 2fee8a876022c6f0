// TensorBoard logs as Hugging Face's Trainer writes them (TensorBoardCallback over torch's
// SummaryWriter), so that TensorBoard and the Hub's "Training metrics" tab read a precis run.
//
// A run logs to `output_dir/runs/<Mon DD_HH-MM-SS>_<host>/` by default (training_args'
// logging_dir), one event file per writer. The trainer calls log() with each entry it adds to
// log_history; the tags are those of transformers' rewrite_logs: eval_x -> eval/x,
// test_x -> test/x, everything else train/x.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

namespace precis::train {

class TensorBoardWriter {
 public:
  // Creates log_dir if needed and a new event file in it, named as TensorBoard's writer names
  // them (events.out.tfevents.<unix time, 10 digits>.<host>.<pid>.<n>), starting with the
  // file_version event. Throws precis::Error naming the path when it cannot. `host`: this
  // host's name ("": gethostname()).
  explicit TensorBoardWriter(std::filesystem::path log_dir, const std::string& host = "");
  ~TensorBoardWriter();
  TensorBoardWriter(TensorBoardWriter&&) noexcept;
  TensorBoardWriter& operator=(TensorBoardWriter&&) noexcept;

  // A float32 scalar (SummaryWriter.add_scalar).
  void add_scalar(const std::string& tag, double value, int64_t step);
  // A text under "<tag>/text_summary", as SummaryWriter.add_text names it; Trainer logs its
  // arguments ("args") and the model config ("model_config") this way, at step 0.
  void add_text(const std::string& tag, const std::string& text, int64_t step = 0);
  // TensorBoardCallback.on_log: every numeric value of a log_history entry as a scalar at
  // `step` (the entry's own "step" key is skipped: Trainer adds it after the callbacks ran),
  // then flush.
  void log(const nlohmann::json& logs, int64_t step);
  // Pushes buffered events to the file (the OS has them; no fsync).
  void flush();

  const std::filesystem::path& path() const { return path_; }

 private:
  void write_event(const std::string& event);

  std::filesystem::path path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
};

// Hugging Face's default logging_dir: output_dir/runs/<%b%d_%H-%M-%S in local time>_<host>
// (`host`, or gethostname() when "").
std::filesystem::path default_logging_dir(const std::filesystem::path& output_dir,
                                          std::chrono::system_clock::time_point now = std::chrono::system_clock::now(),
                                          const std::string& host = "");

// The (tag, value) pairs TensorBoardCallback.on_log writes for one log entry: numbers and
// booleans (Python's bool is an int); strings and the rest are dropped, as HF drops them with a
// warning; the key "step" is not a logged value. In the json object's key order (TensorBoard
// does not care about the order within one step).
std::vector<std::pair<std::string, double>> tensorboard_scalars(const nlohmann::json& logs);

// transformers' rewrite_logs for one key: "eval_loss" -> "eval/loss", "test_x" -> "test/x",
// "loss" -> "train/loss".
std::string tensorboard_tag(const std::string& log_key);

}  // namespace precis::train
