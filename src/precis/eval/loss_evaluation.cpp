#include "precis/eval/loss_evaluation.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "precis/core/progress.h"
#include "precis/model/families.h"

namespace precis::eval {

template <class Model>
LossEvaluation evaluate_loss(const Model& model,
                             const std::vector<data::SummarizationExample>& examples,
                             int64_t batch_size, const data::CollatorOptions& collator) {
  check(batch_size > 0, "per_device_eval_batch_size must be positive");
  check(!examples.empty(), "the evaluation data holds no examples");
  auto start = std::chrono::steady_clock::now();
  std::vector<const data::SummarizationExample*> all;
  for (const auto& e : examples) all.push_back(&e);

  // One arena sized for the largest batch shape, reused by every batch.
  int64_t max_source = 0, max_target = 0;
  for (size_t i = 0; i < all.size(); i += size_t(batch_size)) {
    std::span<const data::SummarizationExample* const> chunk(all.data() + i,
                                                             std::min(all.size() - i, size_t(batch_size)));
    auto [s, t] = data::padded_lengths(chunk, collator);
    max_source = std::max(max_source, s);
    max_target = std::max(max_target, t);
  }
  Arena measure = Arena::measuring();
  allocate_activations(model.config, measure, batch_size, max_source, max_target, false);
  const size_t input_bytes = size_t(4 * 4 * batch_size * (max_source + max_target)) + 4 * Arena::kAlignment;
  Arena arena(measure.used() + input_bytes);

  LossEvaluation result;
  double batch_means = 0.0;
  Progress progress("eval", int64_t(all.size()), "samples");
  for (size_t i = 0; i < all.size(); i += size_t(batch_size)) {
    arena.reset();
    std::span<const data::SummarizationExample* const> chunk(all.data() + i,
                                                             std::min(all.size() - i, size_t(batch_size)));
    Seq2SeqBatch batch = data::collate(chunk, collator, arena);
    auto acts = allocate_activations(model.config, arena, batch.batch_size(), batch.input_ids.size(1),
                                     batch.labels.size(1), false);
    model_forward(model.config, model.params, batch, acts);
    batch_means += model_loss(batch, acts).mean();
    result.samples += int64_t(chunk.size());
    result.steps += 1;
    progress.advance(int64_t(chunk.size()));
  }
  progress.finish();
  result.eval_loss = batch_means / double(result.steps);
  result.runtime_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

#define PRECIS_INSTANTIATE(Model, Config, family)                                              \
  template LossEvaluation evaluate_loss<Model>(const Model&,                                   \
                                               const std::vector<data::SummarizationExample>&, \
                                               int64_t, const data::CollatorOptions&);
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::eval
