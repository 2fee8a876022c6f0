// trainer_state.json as transformers' TrainerState writes it: progress counters and the
// log history (one entry per logging step, evaluation and the final summary).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace precis::train {

struct TrainerState {
  int64_t global_step = 0;
  double epoch = 0.0;
  int64_t max_steps = 0;
  int64_t num_train_epochs = 0;
  int64_t logging_steps = 500, eval_steps = 500, save_steps = 500;
  int64_t train_batch_size = 8;
  double total_flos = 0;
  std::optional<double> best_metric;
  std::optional<std::string> best_model_checkpoint;
  nlohmann::json log_history = nlohmann::json::array();

  nlohmann::json to_json() const;
  static TrainerState from_json(const nlohmann::json& j, const std::string& source);
  void save(const std::filesystem::path& file) const;  // atomically, indent 2, sorted keys
  static TrainerState load(const std::filesystem::path& file);
};

}  // namespace precis::train
