// One batch in a seq2seq model's terms: what run_summarization's DataCollatorForSeq2Seq
// hands the model. Views; the memory belongs to whoever built the batch.
#pragma once

#include "precis/core/tensor.h"
#include "precis/kernels/token_ids.h"

namespace precis {

struct Seq2SeqBatch {
  Tensor input_ids;          // (B, S) I32, right-padded with pad_token_id
  Tensor attention_mask;     // (B, S) I32, 1 = token, 0 = padding
  Tensor decoder_input_ids;  // (B, T) I32 = shift_tokens_right(labels)
  Tensor labels;             // (B, T) I32, -100 where padded; may be undefined
  // Every id of input_ids and decoder_input_ids is in [0, ids_checked.below), and every label
  // there or -100: checked on the host where the batch was built (data::collate), so the ops
  // need not check them again on the device.
  CheckedIds ids_checked = {};

  int64_t batch_size() const { return input_ids.size(0); }
};

}  // namespace precis
