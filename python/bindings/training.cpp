// precis.train and precis.Seq2SeqTrainingArguments: keyword arguments (or a transformers
// TrainingArguments.to_dict()) through the parser of `precis train` (one option table, one
// set of checks and messages), then train::run_training_job with the GIL released. A reporter
// of the package's own (train/trainer_callback.h) hands each log entry to a Python callback
// and each step to the progress bar, and turns a Ctrl-C into the library's stop at the
// step's end: --save_on_interrupt is on unless the settings say otherwise, so a
// KeyboardInterrupt leaves a checkpoint, is raised after the run, and the interpreter lives on.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <csignal>
#include <memory>

#include "bindings.h"
#include "precis/train/interrupt.h"
#include "precis/train/trainer.h"
#include "precis/train/trainer_callback.h"
#include "precis/train/training_arguments.h"

namespace precis::python {

namespace {

// What the Python side passes: on_log(entry: dict) for every entry of the log history (logging
// steps, evaluations, the summary); on_step(step, total_steps, first_step) after every step.
struct PythonHooks {
  nb::object on_log, on_step;
  std::optional<nlohmann::json> summary;  // the finished run's, as trainer.train() reports it
};

class PythonReporter final : public train::TrainerCallback {
 public:
  PythonReporter(PythonHooks& hooks, int64_t first_step, int64_t total_steps)
      : hooks_(hooks), first_step_(first_step), total_steps_(total_steps) {}

  void on_step_end(const train::StepRecord& record) override {
    nb::gil_scoped_acquire held;
    if (!hooks_.on_step.is_none()) hooks_.on_step(record.step, total_steps_, first_step_);
    // A Ctrl-C that came before the library's handler was installed (while the data was read)
    // reached Python's: hand it on, so the library stops after this step as for its own.
    if (PyErr_CheckSignals() != 0) {
      if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) throw nb::python_error();
      PyErr_Clear();
      std::raise(SIGINT);
    }
  }
  void on_log(const nlohmann::json& logs, int64_t) override { log(logs); }
  void on_evaluate(const nlohmann::json& metrics, int64_t) override { log(metrics); }
  void on_train_end(const nlohmann::json& summary, int64_t step) override {
    hooks_.summary = summary;
    (*hooks_.summary)["step"] = step;
    log(*hooks_.summary);
  }

 private:
  void log(const nlohmann::json& entry) {
    nb::gil_scoped_acquire held;
    if (!hooks_.on_log.is_none()) hooks_.on_log(from_json(entry));
  }

  PythonHooks& hooks_;
  int64_t first_step_, total_steps_;
};

// Python's own SIGINT and SIGTERM handlers, put back when the run ends however it ends (the
// library's replace them for the run), and the library's record of a signal forgotten.
class PythonSignalHandlers {
 public:
  PythonSignalHandlers() {
    sigaction(SIGINT, nullptr, &int_);
    sigaction(SIGTERM, nullptr, &term_);
  }
  ~PythonSignalHandlers() {
    sigaction(SIGINT, &int_, nullptr);
    sigaction(SIGTERM, &term_, nullptr);
    train::InterruptRequest::clear();
  }

 private:
  struct sigaction int_ {}, term_ {};
};

train::TrainingArguments parse(nb::handle settings, const std::string& origin) {
  return train::parse_training_arguments(to_json(settings), origin);
}

}  // namespace

void bind_training(nb::module_& m) {
  m.def(
      "parse_training_arguments",
      [](nb::handle settings, const std::string& origin) {
        return from_json(train::to_json(parse(settings, origin)));
      },
      nb::arg("settings"), nb::arg("origin"),
      "Every option of `precis train` with its value after the parser's checks and derived defaults.");
  m.def("training_arguments_help", &train::training_arguments_help);
  m.def(
      "train",
      [](nb::handle settings, nb::object on_log, nb::object on_step) -> nb::object {
        nlohmann::json given = to_json(settings);
        if (given.is_object() && !given.contains("save_on_interrupt")) given["save_on_interrupt"] = true;
        train::TrainingArguments args = train::parse_training_arguments(given, "precis.train");
        PythonHooks hooks{std::move(on_log), std::move(on_step), std::nullopt};
        args.embedder_reporter = [&hooks](int64_t first_step, int64_t total_steps) {
          return std::make_unique<PythonReporter>(hooks, first_step, total_steps);
        };
        bool interrupted = false;
        {
          PythonSignalHandlers python_handlers;
          nb::gil_scoped_release released;
          train::run_training_job(args);
          interrupted = train::InterruptRequest::requested();
        }
        if (interrupted) {
          PyErr_SetString(PyExc_KeyboardInterrupt,
                          "precis.train stopped at the end of a step and saved a checkpoint; call it "
                          "again with the same arguments to resume");
          throw nb::python_error();
        }
        return hooks.summary ? from_json(*hooks.summary) : nb::none();
      },
      nb::arg("settings"), nb::arg("on_log").none(), nb::arg("on_step").none());
}

}  // namespace precis::python
