// The training step's activation arena, sized once for the largest micro-batch of any epoch by
// running the allocation code (activations and backward scratch) on a measuring arena, so that
// no step allocates. Fixed-size batches: the longest source and target bound every batch's
// shape, whatever the order. Token-budget batches are the same groups every epoch (only their
// order changes): the largest is measured. With several ranks the arena also holds the global
// batch's token ids, of which the shard is a row range.
#pragma once

#include <cstddef>
#include <vector>

#include "precis/data/collator.h"
#include "precis/train/batch_sampler.h"
#include "precis/train/training_arguments.h"
#include "precis/train/training_data.h"

namespace precis::train {

// Config: BartConfig or T5Config. `first_epoch`: the global batches of epoch 0.
template <class Config>
size_t training_arena_bytes(const Config& config, const TrainingData& data,
                            const std::vector<GlobalBatch>& first_epoch,
                            const data::CollatorOptions& collator, const TrainingArguments& args);

}  // namespace precis::train
