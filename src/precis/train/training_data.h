// The data files as the trainer reads them: a split (train, validation or test file) read,
// cleaned and tokenized as run_summarization's preprocess_function does; and the training
// split as the loop walks it, one global micro-batch per step, dealt by batch_sampler.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "precis/data/summarization_examples.h"
#include "precis/tokenize/text_tokenizer.h"
#include "precis/train/batch_sampler.h"
#include "precis/train/training_arguments.h"

namespace precis::train {

// The first `max_samples` records of `file`, tokenized with targets cut at
// `max_target_length`. `verbose` (rank 0) counts the records dropped or skipped on stderr.
std::vector<data::SummarizationExample> load_split(
    const TrainingArguments& args, const std::string& file, std::optional<int64_t> max_samples,
    int64_t max_target_length, const tokenize::TextTokenizer& tokenizer, bool verbose);

struct TrainingData {
  std::vector<data::SummarizationExample> examples;
  std::vector<int64_t> lengths;  // max(source, target) tokens, what the sampler sorts by
  SamplerOptions sampler;
  int world = 1;

  // A step's micro-batch is one global batch: per_device_train_batch_size x world examples
  // (or, with a token budget, world token-budget batches), each rank computing its shard.
  // The same for every rank and for a resumed run: a function of (data_seed, epoch).
  std::vector<GlobalBatch> global_batches(int64_t epoch) const;
};

// --train_file, for `world` ranks.
TrainingData load_training_data(const TrainingArguments& args, int world,
                                const tokenize::TextTokenizer& tokenizer, bool verbose);

}  // namespace precis::train
