#include "precis/train/arena_sizing.h"

#include <algorithm>

#include "precis/model/common/seq2seq_family.h"
#include "precis/model/families.h"

namespace precis::train {

namespace {

// One micro-batch of B rows padded to S source and T target tokens, plus the collated token
// ids of `collated_rows` rows (the whole global batch with shared padding).
template <class Config>
size_t micro_batch_bytes(const Config& config, int64_t B, int64_t S, int64_t T,
                         int64_t collated_rows) {
  Arena measure = Arena::measuring();
  allocate_activations(config, measure, B, S, T, true);
  allocate_grad_scratch(config, measure, B, S, T);
  return measure.used() + size_t(16 * collated_rows * (S + T)) + 8 * Arena::kAlignment;
}

}  // namespace

template <class Config>
size_t training_arena_bytes(const Config& config, const TrainingData& data,
                            const std::vector<GlobalBatch>& first_epoch,
                            const data::CollatorOptions& collator, const TrainingArguments& a) {
  size_t bytes = 0;
  if (a.max_tokens_per_batch > 0) {
    for (const GlobalBatch& g : first_epoch)
      for (const Batch& b : g.shards) {
        if (b.empty()) continue;
        std::vector<const data::SummarizationExample*> chunk;
        for (int64_t i : b) chunk.push_back(&data.examples[size_t(i)]);
        auto [S, T] = data::padded_lengths(chunk, collator);
        bytes =
            std::max(bytes, micro_batch_bytes(config, int64_t(b.size()), S, T, int64_t(b.size())));
      }
    return bytes;
  }
  int64_t max_source = 1, max_target = 1;
  for (const auto& e : data.examples) {
    max_source = std::max<int64_t>(max_source, int64_t(e.input_ids.size()));
    max_target = std::max<int64_t>(max_target, int64_t(e.labels.size()));
  }
  return micro_batch_bytes(config, a.per_device_train_batch_size, max_source, max_target,
                           a.per_device_train_batch_size * data.world);
}

#define PRECIS_INSTANTIATE(Model, Config, family)                          \
  template size_t training_arena_bytes<Config>(                            \
      const Config&, const TrainingData&, const std::vector<GlobalBatch>&, \
      const data::CollatorOptions&, const TrainingArguments&);
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
