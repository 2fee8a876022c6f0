#include "precis/eval/generation_evaluation.h"

#include <chrono>

#include "precis/core/progress.h"
#include "precis/eval/loss_evaluation.h"
#include "precis/generate/generate.h"

namespace precis::eval {

template <class Model>
GenerationEvaluation evaluate_with_generation(const Model& model, const tokenize::TextTokenizer& tokenizer,
                                              const std::vector<data::SummarizationExample>& examples,
                                              int64_t batch_size, const data::CollatorOptions& collator,
                                              const generate::GenerationConfig& generation,
                                              uint32_t bootstrap_seed) {
  auto start = std::chrono::steady_clock::now();
  LossEvaluation loss = evaluate_loss(model, examples, batch_size, collator);
  std::vector<std::vector<int32_t>> predictions, labels;
  Progress progress("generate", int64_t(examples.size()), "samples");
  // Sampling goes on drawing from one generator batch after batch, as HF's from torch's.
  TorchCpuGenerator generator(generation.seed);
  generate::GenerateOptions options;
  options.generator = &generator;
  for (size_t i = 0; i < examples.size(); i += size_t(batch_size)) {
    size_t end = std::min(examples.size(), i + size_t(batch_size));
    std::vector<std::vector<int32_t>> inputs;
    for (size_t j = i; j < end; ++j) {
      const auto& e = examples[j];
      inputs.emplace_back(e.input_ids.begin(), e.input_ids.begin() + std::ptrdiff_t(e.source_tokens));
      labels.push_back(e.labels);
    }
    generate::Generated out = generate::generate(model, inputs, generation, options);
    for (int64_t r = 0; r < out.rows; ++r) {
      auto row = out.row(r);
      predictions.emplace_back(row.begin(), row.end());
    }
    progress.advance(int64_t(end - i));
  }
  progress.finish();
  GenerationEvaluation r;
  r.loss = loss.eval_loss;
  r.samples = loss.samples;
  r.steps = loss.steps;
  r.scores = score_summaries(predictions, labels, tokenizer, bootstrap_seed);
  r.runtime_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

#define PRECIS_INSTANTIATE(Model)                                                                      \
  template GenerationEvaluation evaluate_with_generation<Model>(                                       \
      const Model&, const tokenize::TextTokenizer&, const std::vector<data::SummarizationExample>&, int64_t, \
      const data::CollatorOptions&, const generate::GenerationConfig&, uint32_t);
PRECIS_INSTANTIATE(BartModel)
PRECIS_INSTANTIATE(T5Model)
#undef PRECIS_INSTANTIATE

}  // namespace precis::eval
