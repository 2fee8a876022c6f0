#include "precis/train/trainer_state.h"

#include <fstream>
#include <sstream>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/json_input.h"

namespace precis::train {

nlohmann::json TrainerState::to_json() const {
  nlohmann::json j;
  j["best_metric"] = best_metric ? nlohmann::json(*best_metric) : nlohmann::json(nullptr);
  j["best_model_checkpoint"] = best_model_checkpoint ? nlohmann::json(*best_model_checkpoint) : nlohmann::json(nullptr);
  j["epoch"] = epoch;
  j["eval_steps"] = eval_steps;
  j["global_step"] = global_step;
  j["is_hyper_param_search"] = false;
  j["is_local_process_zero"] = true;
  j["is_world_process_zero"] = true;
  j["log_history"] = log_history;
  j["logging_steps"] = logging_steps;
  j["max_steps"] = max_steps;
  j["num_input_tokens_seen"] = 0;
  j["num_train_epochs"] = num_train_epochs;
  j["save_steps"] = save_steps;
  j["total_flos"] = total_flos;
  j["train_batch_size"] = train_batch_size;
  j["trial_name"] = nullptr;
  j["trial_params"] = nullptr;
  return j;
}

TrainerState TrainerState::from_json(const nlohmann::json& j, const std::string& source) {
  check(j.is_object(), source + ": expected a JSON object");
  TrainerState s;
  try {
    s.global_step = j.at("global_step").get<int64_t>();
    s.epoch = j.value("epoch", 0.0);
    s.max_steps = j.value("max_steps", int64_t(0));
    s.num_train_epochs = j.value("num_train_epochs", int64_t(0));
    s.logging_steps = j.value("logging_steps", int64_t(500));
    s.eval_steps = j.value("eval_steps", int64_t(500));
    s.save_steps = j.value("save_steps", int64_t(500));
    s.train_batch_size = j.value("train_batch_size", int64_t(8));
    s.total_flos = j.value("total_flos", int64_t(0));
    if (j.contains("best_metric") && j["best_metric"].is_number()) s.best_metric = j["best_metric"].get<double>();
    if (j.contains("best_model_checkpoint") && j["best_model_checkpoint"].is_string())
      s.best_model_checkpoint = j["best_model_checkpoint"].get<std::string>();
    s.log_history = j.value("log_history", nlohmann::json::array());
  } catch (const nlohmann::json::exception& e) {
    throw Error(source + ": not a trainer state: " + e.what());
  }
  check(s.global_step >= 0, source + ": global_step must not be negative");
  return s;
}

void TrainerState::save(const std::filesystem::path& file) const {
  write_file_atomic(file, to_json().dump(2) + "\n");
}

TrainerState TrainerState::load(const std::filesystem::path& file) {
  std::ifstream in(file);
  check(bool(in), file.string() + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  return from_json(parse_json(text.str(), file.string()), file.string());
}

}  // namespace precis::train
