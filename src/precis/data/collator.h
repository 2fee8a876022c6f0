// DataCollatorForSeq2Seq with label_pad_token_id = -100: pads a list of examples to the
// longest in the batch (or a multiple of pad_to_multiple_of), sets the attention mask, and
// builds decoder_input_ids = shift_tokens_right(labels, pad, decoder_start).
#pragma once

#include <span>

#include "precis/core/arena.h"
#include "precis/data/seq2seq_batch.h"
#include "precis/data/summarization_examples.h"

namespace precis::data {

// The ids are the model's (BART's 1 and 2, T5's 0 and 0): no default, so that no family's
// ids stand in for another's.
struct CollatorOptions {
  int32_t pad_token_id, decoder_start_token_id;
  int64_t pad_to_multiple_of = 1;
  // The model's vocabulary: when set, collate() checks every id it writes on the host, where
  // the ids are, and the batch says so (Seq2SeqBatch::ids_checked); an id outside it is an
  // error naming the example and the id. 0: unchecked here, the ops check (on a GPU, a wait).
  int64_t vocab_size = 0;
};

// The (source, target) lengths collate() would give these examples.
std::pair<int64_t, int64_t> padded_lengths(std::span<const SummarizationExample* const> examples,
                                           const CollatorOptions& options);

// The batch's tensors are allocated from `arena`, on its device: a GPU's batch is built on the
// host and copied there, one copy per tensor.
Seq2SeqBatch collate(std::span<const SummarizationExample* const> examples,
                     const CollatorOptions& options, Arena& arena);

// shift_tokens_right: out[:, 0] = start, out[:, 1:] = labels[:, :-1], then -100 -> pad.
void shift_tokens_right(const Tensor& labels, int32_t pad_token_id, int32_t decoder_start_token_id,
                        const Tensor& out);

}  // namespace precis::data
