// The loss half of Trainer.evaluate(): batches in order, each batch's mean token loss
// repeated `per_device_eval_batch_size` times, then averaged (evaluation_loop). The nominal
// batch size is used for the last, partial batch too: with transformers 4.44 and accelerate
// 0.34 on one process nothing truncates it (the oracle test shows it), so eval_loss is the
// plain mean of the batch means.
#pragma once

#include <vector>

#include "precis/data/collator.h"
#include "precis/model/common/seq2seq_family.h"

namespace precis::eval {

struct LossEvaluation {
  double eval_loss = 0.0;
  int64_t samples = 0;
  int64_t steps = 0;
  double runtime_s = 0.0;
};

// Model: a family's (model/families.h).
template <class Model>
LossEvaluation evaluate_loss(const Model& model,
                             const std::vector<data::SummarizationExample>& examples,
                             int64_t batch_size, const data::CollatorOptions& collator);

}  // namespace precis::eval
