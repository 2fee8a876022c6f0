#include "precis/data/summarization_examples.h"

#include "precis/kernels/cross_entropy.h"

namespace precis::data {

std::vector<SummarizationExample> preprocess(const std::vector<Record>& records,
                                             const tokenize::TextTokenizer& tokenizer,
                                             const PreprocessOptions& options) {
  std::vector<std::string> sources, targets;
  sources.reserve(records.size());
  targets.reserve(records.size());
  for (const auto& r : records) {
    sources.push_back(options.source_prefix + r.text);
    targets.push_back(r.summary);
  }
  auto inputs = tokenizer.encode_batch(sources, options.max_source_length);
  auto labels = tokenizer.encode_batch(targets, options.max_target_length);
  std::vector<SummarizationExample> examples(records.size());
  const int32_t pad = tokenizer.pad_token_id();
  for (size_t i = 0; i < examples.size(); ++i) {
    examples[i].input_ids = std::move(inputs[i]);
    examples[i].labels = std::move(labels[i]);
    examples[i].source_tokens = examples[i].input_ids.size();
    if (options.pad_to_max_length) {
      examples[i].input_ids.resize(options.max_source_length, pad);
      examples[i].labels.resize(options.max_target_length, pad);
      for (auto& id : examples[i].labels)
        if (id == pad) id = kIgnoreIndex;
    }
  }
  return examples;
}

}  // namespace precis::data
