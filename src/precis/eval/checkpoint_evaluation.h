// `precis eval` and precis.evaluate: a checkpoint directory's metrics on a dataset file, as
// run_summarization's Trainer.evaluate() reports them (eval_loss, and with
// predict_with_generate generate() and its ROUGE scores, plus Trainer's speed metrics). One
// function for the command line and the Python package, so both give the same dict and the
// same errors.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "precis/eval/summary_lengths.h"

namespace precis::eval {

// The options of `precis eval`, by its long names.
struct EvaluationOptions {
  std::string model;  // checkpoint directory (BART or T5: config.json's model_type)
  std::string data;   // dataset file: JSON, JSON lines, CSV, TSV
  std::string text_column, summary_column;  // empty: dialogue, summary
  std::string source_prefix;                // put before every input (T5: "summarize: ")
  std::string dataset_name;                 // a Hub dataset: refused (nothing is downloaded)
  size_t max_source_length = 1024;
  SummaryLengths lengths;
  int64_t per_device_eval_batch_size = 8;
  size_t max_eval_samples = 0;  // 0: every record
  bool pad_to_max_length = false;
  bool predict_with_generate = false;
  int64_t num_beams = 0;   // generation's beams; 0: the checkpoint's generation config
  std::string output_dir;  // non-empty: eval_results.json (and generated_predictions.txt) here
  uint32_t seed = 42;      // the ROUGE bootstrap's
};

// The metrics eval_results.json holds (eval_loss, eval_samples, eval_runtime,
// eval_samples_per_second, eval_steps_per_second; with predict_with_generate also eval_rouge*
// and eval_gen_len). Writes the files of output_dir when it is set. Throws precis::Error.
nlohmann::json evaluate_checkpoint(const EvaluationOptions& options);

}  // namespace precis::eval
