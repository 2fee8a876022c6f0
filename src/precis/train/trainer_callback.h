// The trainer's reports behind one interface, as Hugging Face's TrainerCallback: the training
// loop says what happened (an optimizer step ended, a logging step, an evaluation, the end of
// the loop, the run's summary) and each reporter (reporters.h) keeps its own record of it: the
// progress line and stderr, train_log.jsonl, TensorBoard's event file, trainer_state's log
// history. CallbackHandler calls them in the order they were added.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "precis/train/training_plan.h"

namespace precis::train {

// One optimizer step, unrounded.
struct StepRecord {
  int64_t step = 0;  // global_step after the update
  double epoch = 0;
  double loss = 0;  // the step's loss (summed over ranks)
  double grad_norm = 0;
  double learning_rate = 0;  // the rate this update used
  double elapsed_s = 0;      // since training started
  // Set when the time budget's horizon was (re)estimated after this step.
  std::optional<HorizonEstimate> horizon;
};

class TrainerCallback {
 public:
  virtual ~TrainerCallback() = default;
  // After every optimizer step (on_step_end).
  virtual void on_step_end(const StepRecord& /*record*/) {}
  // A logging_steps entry: loss (the mean since the last entry), grad_norm, learning_rate,
  // epoch, step (on_log).
  virtual void on_log(const nlohmann::json& /*logs*/, int64_t /*step*/) {}
  // The metrics of an evaluation during training, with epoch and step (on_evaluate).
  virtual void on_evaluate(const nlohmann::json& /*metrics*/, int64_t /*step*/) {}
  // No more steps: the plan is done, the time budget spent or a signal came.
  virtual void on_loop_end() {}
  // A finished run's summary (train_runtime, train_loss, ...), the log history's last entry
  // (HF logs it just before on_train_end). An interrupted run has none.
  virtual void on_train_end(const nlohmann::json& /*summary*/, int64_t /*step*/) {}
};

class CallbackHandler {
 public:
  void add(std::unique_ptr<TrainerCallback> callback) { callbacks_.push_back(std::move(callback)); }
  void on_step_end(const StepRecord& record) {
    for (auto& c : callbacks_) c->on_step_end(record);
  }
  void on_log(const nlohmann::json& logs, int64_t step) {
    for (auto& c : callbacks_) c->on_log(logs, step);
  }
  void on_evaluate(const nlohmann::json& metrics, int64_t step) {
    for (auto& c : callbacks_) c->on_evaluate(metrics, step);
  }
  void on_loop_end() {
    for (auto& c : callbacks_) c->on_loop_end();
  }
  void on_train_end(const nlohmann::json& summary, int64_t step) {
    for (auto& c : callbacks_) c->on_train_end(summary, step);
  }

 private:
  std::vector<std::unique_ptr<TrainerCallback>> callbacks_;
};

}  // namespace precis::train
