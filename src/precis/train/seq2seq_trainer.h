// One `precis train` job for one model family, as run_summarization.py drives Seq2SeqTrainer:
// set-up (the resume point, the model and tokenizer, the optimizer, the validation set and the
// generation settings), then do_train (training_loop.h), do_eval and do_predict (evaluator.h),
// then all_results.json and the model card. Model: a family's (explicitly
// instantiated); trainer.h's run_training_job picks one.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "precis/dist/communicator.h"
#include "precis/train/evaluator.h"
#include "precis/train/job_clock.h"
#include "precis/train/training_arguments.h"
#include "precis/train/training_run.h"

namespace precis::train {

template <class Model>
class Seq2SeqTrainer {
 public:
  Seq2SeqTrainer(const TrainingArguments& args, dist::Communicator& comm,
                 JobClock::time_point job_start);
  // Runs do_train, do_eval and do_predict as asked. Collective with several ranks.
  void run();

 private:
  // do_train: train_results.json's content, or nullopt when a signal stopped the run.
  std::optional<nlohmann::json> train();

  const TrainingArguments& args_;
  dist::Communicator& comm_;
  const JobClock::time_point job_start_;
  const std::optional<std::filesystem::path> resume_;
  TrainingRun<Model> run_;
  Evaluator<Model> evaluator_;
};

}  // namespace precis::train
