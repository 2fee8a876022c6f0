#include "precis/train/trainer_state.h"

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/json_input.h"

namespace precis::train {

namespace {

// The progress counters, each named once for writing and reading: f(key, field, the value a
// file without the key reads as; nullopt where the key is required).
template <class Fields, class State>
void counter_fields(const Fields& f, State& s) {
  f("global_step", s.global_step, std::nullopt);
  f("max_steps", s.max_steps, 0);
  f("num_train_epochs", s.num_train_epochs, 0);
  f("logging_steps", s.logging_steps, 500);
  f("eval_steps", s.eval_steps, 500);
  f("save_steps", s.save_steps, 500);
  f("train_batch_size", s.train_batch_size, 8);
}

// An integer field (absent or null: `fallback`). A float is refused rather than converted:
// nlohmann's conversion of one past int64's range is undefined behaviour.
int64_t integer_field(const nlohmann::json& j, const char* key, std::optional<int64_t> fallback,
                      const std::string& source) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    check(fallback.has_value(), source + ": not a trainer state: no " + key);
    return *fallback;
  }
  const std::string found = it->is_string() ? "a string" : it->dump();
  if (it->is_number_unsigned())
    check(it->get<uint64_t>() <= uint64_t(INT64_MAX), source + ": " + key + ": " + found + " is out of range");
  else
    check(it->is_number_integer(), source + ": " + key + ": expected an integer, found " +
                                       (found.size() > 40 ? found.substr(0, 40) + "..." : found));
  return it->get<int64_t>();
}

}  // namespace

nlohmann::json TrainerState::to_json() const {
  // What transformers writes about a search, the process and the input tokens, which precis
  // has no counterpart for: the values of a single run that does not count tokens.
  nlohmann::json j = {{"is_hyper_param_search", false}, {"is_local_process_zero", true},
                      {"is_world_process_zero", true},  {"num_input_tokens_seen", 0},
                      {"trial_name", nullptr},          {"trial_params", nullptr}};
  j["best_metric"] = best_metric ? nlohmann::json(*best_metric) : nlohmann::json(nullptr);
  j["best_model_checkpoint"] = best_model_checkpoint ? nlohmann::json(*best_model_checkpoint) : nlohmann::json(nullptr);
  j["epoch"] = epoch;
  j["log_history"] = log_history;
  j["total_flos"] = total_flos;
  counter_fields([&](const char* key, int64_t value, std::optional<int64_t>) { j[key] = value; },
                 *this);
  return j;
}

TrainerState TrainerState::from_json(const nlohmann::json& j, const std::string& source) {
  check(j.is_object(), source + ": expected a JSON object");
  TrainerState s;
  counter_fields(
      [&](const char* key, int64_t& value, std::optional<int64_t> fallback) {
        value = integer_field(j, key, fallback, source);
      },
      s);
  try {
    s.epoch = j.value("epoch", 0.0);
    s.total_flos = j.value("total_flos", 0.0);  // a float in HF's (it passes 2^63 on large runs)
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
  return from_json(read_json_file(file), file.string());
}

}  // namespace precis::train
