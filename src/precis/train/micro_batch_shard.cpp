#include "precis/train/micro_batch_shard.h"

namespace precis::train {

int64_t label_tokens(const std::vector<data::SummarizationExample>& examples, const Batch& rows) {
  int64_t n = 0;
  for (int64_t i : rows)
    for (int32_t id : examples[size_t(i)].labels) n += id != -100;
  return n;
}

int64_t label_tokens(const std::vector<data::SummarizationExample>& examples,
                     const GlobalBatch& global) {
  int64_t n = 0;
  for (const Batch& shard : global.shards) n += label_tokens(examples, shard);
  return n;
}

MicroBatchShard collate_shard(const GlobalBatch& global,
                              const std::vector<data::SummarizationExample>& examples, int rank,
                              int world, const data::CollatorOptions& collator,
                              DropoutContext dropout, Arena& arena) {
  const Batch& mine = global.shards[size_t(rank)];
  MicroBatchShard shard;
  shard.dropout = dropout;
  shard.label_tokens = label_tokens(examples, mine);
  if (world > 1 && global.shared_padding) {
    std::vector<const data::SummarizationExample*> all_rows;
    for (const Batch& s : global.shards)
      for (int64_t i : s) all_rows.push_back(&examples[size_t(i)]);
    Seq2SeqBatch all = data::collate(all_rows, collator, arena);
    const int64_t first = global.first_row(rank), rows = int64_t(mine.size());
    shard.batch = {all.input_ids.slice(first, first + rows),
                   all.attention_mask.slice(first, first + rows),
                   all.decoder_input_ids.slice(first, first + rows),
                   all.labels.slice(first, first + rows), all.ids_checked};
    shard.dropout.first_row = uint64_t(first);
    shard.dropout.rows = uint64_t(rows);
    shard.examples.assign(all_rows.begin() + first, all_rows.begin() + first + rows);
  } else {
    for (int64_t i : mine) shard.examples.push_back(&examples[size_t(i)]);
    shard.batch = data::collate(shard.examples, collator, arena);
    shard.dropout.micro_batch = uint32_t(dropout.micro_batch * uint32_t(world) + uint32_t(rank));
  }
  return shard;
}

}  // namespace precis::train
