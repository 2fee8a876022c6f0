// Seq2SeqTrainer.evaluate()/predict() with predict_with_generate: per batch, the loss (the
// model forward with labels) and generate() with the evaluation's generation settings; then
// run_summarization's compute_metrics over all predictions.
#pragma once

#include <vector>

#include "precis/core/progress.h"
#include "precis/core/torch_cpu_generator.h"
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

// generate() over `examples` in batches of batch_size, in order: each example's source tokens
// in, one row of ids out per returned sequence (start token first). Sampling draws from
// `generator` batch after batch, as HF's generate() draws from torch's generator. The products
// are fp32 whatever the CPU matmul precision: Seq2SeqTrainer.prediction_step generates outside
// the bf16 autocast it computes the loss under. `progress` may be null.
template <class Model>
std::vector<std::vector<int32_t>> generate_predictions(
    const Model& model, const std::vector<data::SummarizationExample>& examples, int64_t batch_size,
    const generate::GenerationConfig& generation, TorchCpuGenerator& generator, Progress* progress);

// Model: a family's (model/families.h).
template <class Model>
GenerationEvaluation evaluate_with_generation(
    const Model& model, const tokenize::TextTokenizer& tokenizer,
    const std::vector<data::SummarizationExample>& examples, int64_t batch_size,
    const data::CollatorOptions& collator, const generate::GenerationConfig& generation,
    uint32_t bootstrap_seed);

}  // namespace precis::eval
