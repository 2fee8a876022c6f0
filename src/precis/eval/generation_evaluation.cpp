#include "precis/eval/generation_evaluation.h"

#include <chrono>

#include "precis/core/progress.h"
#include "precis/eval/loss_evaluation.h"
#include "precis/generate/generate.h"
#include "precis/kernels/constant_weights.h"
#include "precis/kernels/matmul_precision.h"
#include "precis/model/families.h"

namespace precis::eval {

template <class Model>
std::vector<std::vector<int32_t>> generate_predictions(
    const Model& model, const std::vector<data::SummarizationExample>& examples, int64_t batch_size,
    const generate::GenerationConfig& generation, TorchCpuGenerator& generator,
    Progress* progress) {
  ScopedCpuMatmulPrecision fp32_generation(MatmulPrecision::kFp32);
  // The parameters hold still for the whole pass: their packed copies serve every batch.
  const ConstantWeightsScope constant(model.arena.base(), model.arena.capacity());
  generate::GenerateOptions options;
  options.generator = &generator;
  std::vector<std::vector<int32_t>> predictions;
  for (size_t i = 0; i < examples.size(); i += size_t(batch_size)) {
    const size_t end = std::min(examples.size(), i + size_t(batch_size));
    std::vector<std::vector<int32_t>> inputs;
    for (size_t j = i; j < end; ++j) {
      const data::SummarizationExample& e = examples[j];
      inputs.emplace_back(e.input_ids.begin(),
                          e.input_ids.begin() + std::ptrdiff_t(e.source_tokens));
    }
    generate::Generated out = generate::generate(model, inputs, generation, options);
    for (int64_t r = 0; r < out.rows; ++r) {
      auto row = out.row(r);
      predictions.emplace_back(row.begin(), row.end());
    }
    if (progress) progress->advance(int64_t(end - i));
  }
  return predictions;
}

template <class Model>
GenerationEvaluation evaluate_with_generation(
    const Model& model, const tokenize::TextTokenizer& tokenizer,
    const std::vector<data::SummarizationExample>& examples, int64_t batch_size,
    const data::CollatorOptions& collator, const generate::GenerationConfig& generation,
    uint32_t bootstrap_seed) {
  auto start = std::chrono::steady_clock::now();
  LossEvaluation loss = evaluate_loss(model, examples, batch_size, collator);
  Progress progress("generate", int64_t(examples.size()), "samples");
  // Sampling goes on drawing from one generator batch after batch, as HF's from torch's.
  TorchCpuGenerator generator(generation.seed);
  const std::vector<std::vector<int32_t>> predictions =
      generate_predictions(model, examples, batch_size, generation, generator, &progress);
  progress.finish();
  std::vector<std::vector<int32_t>> labels;
  for (const data::SummarizationExample& e : examples) labels.push_back(e.labels);
  GenerationEvaluation r;
  r.loss = loss.eval_loss;
  r.samples = loss.samples;
  r.steps = loss.steps;
  r.scores = score_summaries(predictions, labels, tokenizer, bootstrap_seed);
  r.runtime_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// Every family's instantiations: generate_predictions is the sharded evaluation's too.
#define PRECIS_INSTANTIATE(Model, Config, family)                                            \
  template std::vector<std::vector<int32_t>> generate_predictions(                           \
      const Model&, const std::vector<data::SummarizationExample>&, int64_t,                 \
      const generate::GenerationConfig&, TorchCpuGenerator&, Progress*);                     \
  template GenerationEvaluation evaluate_with_generation(                                    \
      const Model&, const tokenize::TextTokenizer&,                                          \
      const std::vector<data::SummarizationExample>&, int64_t, const data::CollatorOptions&, \
      const generate::GenerationConfig&, uint32_t);
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::eval
