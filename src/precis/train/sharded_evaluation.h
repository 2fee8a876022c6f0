// Evaluation and prediction over the data-parallel ranks: the evaluation batches (of
// per_device_eval_batch_size, in order) dealt round-robin, batch k to rank k mod N (as
// accelerate shards HF's eval DataLoader), then gathered in order. So eval_loss (the mean
// of the batch means), the predictions and their ROUGE are those of one process, up to the
// summation order of the mean. One rank: the plain evaluation.
#pragma once

#include "precis/dist/communicator.h"
#include "precis/eval/generation_evaluation.h"
#include "precis/eval/loss_evaluation.h"

namespace precis::train {

// Model: a family's (model/families.h).
template <class Model>
eval::LossEvaluation sharded_evaluate_loss(dist::Communicator& comm, const Model& model,
                                           const std::vector<data::SummarizationExample>& examples,
                                           int64_t batch_size, const data::CollatorOptions& collator);

template <class Model>
eval::GenerationEvaluation sharded_evaluate_with_generation(
    dist::Communicator& comm, const Model& model, const tokenize::TextTokenizer& tokenizer,
    const std::vector<data::SummarizationExample>& examples, int64_t batch_size,
    const data::CollatorOptions& collator, const generate::GenerationConfig& generation, uint32_t bootstrap_seed);

}  // namespace precis::train
