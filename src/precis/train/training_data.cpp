#include "precis/train/training_data.h"

#include <algorithm>
#include <cstdio>

#include "precis/core/error.h"
#include "precis/data/dataset.h"

namespace precis::train {

std::vector<data::SummarizationExample> load_split(
    const TrainingArguments& a, const std::string& file, std::optional<int64_t> max_samples,
    int64_t max_target_length, const tokenize::TextTokenizer& tokenizer, bool verbose) {
  data::ReadOptions read =
      data::columns_for("", a.text_column.value_or(""), a.summary_column.value_or(""));
  read.skip_bad_records = a.skip_bad_records;
  read.max_record_bytes = size_t(a.max_record_bytes);
  if (max_samples) read.max_samples = size_t(*max_samples);
  data::Dataset ds = data::read_dataset(file, read);
  if (verbose && (ds.stats.dropped_empty || ds.stats.skipped_bad))
    std::fprintf(stderr,
                 "precis: %s: %zu records dropped (empty text or summary), %zu skipped as "
                 "malformed\n",
                 file.c_str(), ds.stats.dropped_empty, ds.stats.skipped_bad);
  check(!ds.records.empty(), file + ": no usable records");
  return data::preprocess(ds.records, tokenizer,
                          {a.source_prefix.value_or(""), size_t(a.max_source_length),
                           size_t(max_target_length), a.pad_to_max_length});
}

std::vector<GlobalBatch> TrainingData::global_batches(int64_t epoch) const {
  return epoch_global_batches(lengths, sampler, epoch, world);
}

TrainingData load_training_data(const TrainingArguments& a, int world,
                                const tokenize::TextTokenizer& tokenizer, bool verbose) {
  TrainingData data;
  data.examples = load_split(a, a.train_file.value(), a.max_train_samples, a.max_target_length,
                             tokenizer, verbose);
  for (const auto& e : data.examples)
    data.lengths.push_back(int64_t(std::max(e.input_ids.size(), e.labels.size())));
  data.sampler = {a.per_device_train_batch_size, a.group_by_length, a.max_tokens_per_batch,
                  a.dataloader_drop_last, uint64_t(a.data_seed.value_or(a.seed))};
  data.world = world;
  return data;
}

}  // namespace precis::train
