// Seq2SeqTrainer.evaluate()/predict() with predict_with_generate: per batch, the loss (the
// model forward with labels) and generate() with the evaluation's generation settings; then
// run_summarization's compute_metrics over all predictions.
#pragma once

#include <vector>

#include "precis/data/collator.h"
#include "precis/eval/summarization_metrics.h"
#include "precis/generate/generation_config.h"
#include "precis/model/common/seq2seq_family.h"
#include "precis/tokenize/text_tokenizer.h"

namespace precis::eval {

struct GenerationEvaluation {
  double loss = 0.0;  // as evaluate_loss
  int64_t samples = 0, steps = 0;
  double runtime_s = 0.0;
  SummarizationScores scores;
};

// Model: BartModel or T5Model.
template <class Model>
GenerationEvaluation evaluate_with_generation(const Model& model, const tokenize::TextTokenizer& tokenizer,
                                              const std::vector<data::SummarizationExample>& examples,
                                              int64_t batch_size, const data::CollatorOptions& collator,
                                              const generate::GenerationConfig& generation,
                                              uint32_t bootstrap_seed);

}  // namespace precis::eval
