// Evaluation and prediction as Seq2SeqTrainer runs them, over every rank
// (sharded_evaluation.h): the loss alone, or with predict_with_generate the generated summaries
// and their ROUGE, reported under HF's metric names (eval_loss, eval_rouge1, eval_runtime,
// ...). Used during training (eval_strategy), and for do_eval and do_predict afterwards, which
// write eval_results.json, predict_results.json and generated_predictions.txt as
// run_summarization does. Model: a family's (model/families.h; instantiated for each).
#pragma once

#include <string>
#include <vector>

#include "precis/data/summarization_examples.h"
#include "precis/dist/communicator.h"
#include "precis/generate/generation_config.h"
#include "precis/train/training_arguments.h"
#include "precis/train/training_run.h"

namespace precis::train {

template <class Model>
class Evaluator {
 public:
  // Reads and tokenizes the validation file when there will be evaluations, and settles the
  // generation settings.
  Evaluator(const TrainingArguments& args, dist::Communicator& comm, const TrainingRun<Model>& run);

  // The validation set's metrics, eval_*. Collective.
  nlohmann::json evaluate() const;
  // do_eval: evaluate(), with the epoch after training; eval_results.json and stdout (rank 0).
  nlohmann::json evaluate_and_report() const;
  // do_predict: the test file's metrics, predict_*; predict_results.json, with
  // predict_with_generate generated_predictions.txt, and stdout (rank 0). Collective.
  nlohmann::json predict_and_report() const;

 private:
  // HF's metrics with `prefix` and, with predict_with_generate, the decoded predictions.
  nlohmann::json metrics(const std::string& prefix,
                         const std::vector<data::SummarizationExample>& examples,
                         std::vector<std::string>* predictions) const;

  const TrainingArguments& args_;
  dist::Communicator& comm_;
  const TrainingRun<Model>& run_;
  std::vector<data::SummarizationExample> eval_examples_;
  generate::GenerationConfig generation_;
};

}  // namespace precis::train
