// run_summarization.py's preprocess_function: a (text, summary) record becomes token ids
// for the encoder and labels for the decoder.
//   input_ids = tokenizer(source_prefix + text, max_length=max_source_length, truncation=True)
//   labels    = tokenizer(summary, max_length=max_target_length, truncation=True)
// With pad_to_max_length both are padded to their maximum here (labels with -100, as
// ignore_pad_token_for_loss does); otherwise DataCollatorForSeq2Seq pads per batch.
#pragma once

#include <string>
#include <vector>

#include "precis/data/dataset.h"
#include "precis/tokenize/text_tokenizer.h"

namespace precis::data {

struct SummarizationExample {
  std::vector<int32_t> input_ids;
  std::vector<int32_t> labels;
  size_t source_tokens = 0;  // real tokens at the front of input_ids (the rest is padding)
};

struct PreprocessOptions {
  std::string source_prefix;
  size_t max_source_length = 1024;
  size_t max_target_length = 128;  // val_max_target_length for evaluation data
  bool pad_to_max_length = false;
};

std::vector<SummarizationExample> preprocess(const std::vector<Record>& records,
                                             const tokenize::TextTokenizer& tokenizer,
                                             const PreprocessOptions& options);

}  // namespace precis::data
