// One rank's part of a step's global micro-batch, collated for the model with its dropout keys.
// With shared padding (fixed-size batches) the global batch is collated whole and the rank
// takes its rows, with the global batch's dropout masks for those rows: so 1 rank x 2b and
// 2 ranks x b compute the same numbers. Token-budget shards are micro-batches of their own,
// each padded alone, with distinct masks per rank.
#pragma once

#include <cstdint>
#include <vector>

#include "precis/core/arena.h"
#include "precis/data/collator.h"
#include "precis/data/summarization_examples.h"
#include "precis/model/common/dropout_context.h"
#include "precis/train/batch_sampler.h"

namespace precis::train {

struct MicroBatchShard {
  Seq2SeqBatch batch;          // this rank's rows, in the arena
  DropoutContext dropout;  // (seed, step, micro-batch, rows) for both families
  std::vector<const data::SummarizationExample*> examples;  // the rows' examples
  int64_t label_tokens = 0;                                 // labels other than -100 in them
};

// Label tokens (labels other than -100) of the examples `rows`: what the loss averages over.
int64_t label_tokens(const std::vector<data::SummarizationExample>& examples, const Batch& rows);
// ... of every rank's shard of `global`: the loss's denominator, the same on every rank.
int64_t label_tokens(const std::vector<data::SummarizationExample>& examples,
                     const GlobalBatch& global);

// Rank `rank`'s shard (not empty) of `global`, collated into `arena`. `dropout` holds the
// step's keys (seed, global step, micro-batch within the step); the shard's rows of the global
// batch are added here, or, for a shard padded alone, the rank is folded into the micro-batch.
MicroBatchShard collate_shard(const GlobalBatch& global,
                              const std::vector<data::SummarizationExample>& examples, int rank,
                              int world, const data::CollatorOptions& collator,
                              DropoutContext dropout, Arena& arena);

}  // namespace precis::train
