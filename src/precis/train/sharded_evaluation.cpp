#include "precis/train/sharded_evaluation.h"

#include <chrono>
#include <cstring>

#include "precis/model/families.h"
#include "precis/train/test_stop.h"

namespace precis::train {

namespace {

using Clock = std::chrono::steady_clock;

// This rank's batches (k = rank, rank + N, ...), concatenated: evaluating them with the same
// batch size processes exactly those batches.
std::vector<data::SummarizationExample> my_batches(
    const dist::Communicator& comm, const std::vector<data::SummarizationExample>& examples,
    int64_t batch_size) {
  std::vector<data::SummarizationExample> mine;
  const size_t b = size_t(batch_size), n = examples.size();
  for (size_t k = size_t(comm.rank()); k * b < n; k += size_t(comm.world_size()))
    for (size_t i = k * b; i < std::min(n, (k + 1) * b); ++i) mine.push_back(examples[i]);
  return mine;
}

// Rows as [count, ids...] int32 words.
std::string pack_rows(const std::vector<std::vector<int32_t>>& rows) {
  std::vector<int32_t> words;
  for (const auto& r : rows) {
    words.push_back(int32_t(r.size()));
    words.insert(words.end(), r.begin(), r.end());
  }
  return std::string(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(int32_t));
}

std::vector<std::vector<int32_t>> unpack_rows(const std::string& bytes) {
  std::vector<int32_t> words(bytes.size() / sizeof(int32_t));
  std::memcpy(words.data(), bytes.data(), words.size() * sizeof(int32_t));
  std::vector<std::vector<int32_t>> rows;
  for (size_t i = 0; i < words.size();) {
    size_t n = size_t(words[i++]);
    rows.emplace_back(words.begin() + std::ptrdiff_t(i), words.begin() + std::ptrdiff_t(i + n));
    i += n;
  }
  return rows;
}

eval::LossEvaluation combine(dist::Communicator& comm, const eval::LossEvaluation& mine,
                             Clock::time_point start) {
  // eval_loss is the mean of the batch means: sum them with their batch counts.
  double totals[3] = {mine.eval_loss * double(mine.steps), double(mine.steps),
                      double(mine.samples)};
  comm.all_reduce(std::span<double>(totals, 3), dist::ReduceOp::Sum);
  eval::LossEvaluation all;
  all.eval_loss = totals[0] / totals[1];
  all.steps = int64_t(totals[1]);
  all.samples = int64_t(totals[2]);
  all.runtime_s = std::chrono::duration<double>(Clock::now() - start).count();
  return all;
}

}  // namespace

template <class Model>
eval::LossEvaluation sharded_evaluate_loss(dist::Communicator& comm, const Model& model,
                                           const std::vector<data::SummarizationExample>& examples,
                                           int64_t batch_size,
                                           const data::CollatorOptions& collator) {
  if (comm.world_size() == 1) return eval::evaluate_loss(model, examples, batch_size, collator);
  const auto start = Clock::now();
  std::vector<data::SummarizationExample> mine = my_batches(comm, examples, batch_size);
  eval::LossEvaluation r;
  if (!mine.empty()) r = eval::evaluate_loss(model, mine, batch_size, collator);
  return combine(comm, r, start);
}

template <class Model>
eval::GenerationEvaluation sharded_evaluate_with_generation(
    dist::Communicator& comm, const Model& model, const tokenize::TextTokenizer& tokenizer,
    const std::vector<data::SummarizationExample>& examples, int64_t batch_size,
    const data::CollatorOptions& collator, const generate::GenerationConfig& generation,
    uint32_t bootstrap_seed) {
  if (comm.world_size() == 1)
    return eval::evaluate_with_generation(model, tokenizer, examples, batch_size, collator,
                                          generation, bootstrap_seed);
  const auto start = Clock::now();
  std::vector<data::SummarizationExample> mine = my_batches(comm, examples, batch_size);
  eval::LossEvaluation loss;
  std::vector<std::vector<int32_t>> rows;
  if (!mine.empty()) {
    loss = eval::evaluate_loss(model, mine, batch_size, collator);
    stop_here_for_test("evaluate", comm.rank());  // a test hook; see test_stop.h
    // Each rank draws from its own generator batch after batch, as each process of a
    // distributed HF predict draws from its torch generator.
    TorchCpuGenerator generator(generation.seed);
    rows = eval::generate_predictions(model, mine, batch_size, generation, generator, nullptr);
  }
  // Predictions back in the order of the examples: batch k from rank k mod N.
  std::vector<std::string> packed = comm.all_gather_bytes(pack_rows(rows));
  std::vector<std::vector<std::vector<int32_t>>> by_rank;
  for (const std::string& p : packed) by_rank.push_back(unpack_rows(p));
  std::vector<size_t> next(by_rank.size(), 0);
  std::vector<std::vector<int32_t>> predictions, labels;
  const size_t b = size_t(batch_size), world = size_t(comm.world_size());
  for (size_t k = 0; k * b < examples.size(); ++k) {
    const size_t r = k % world;
    for (size_t i = k * b; i < std::min(examples.size(), (k + 1) * b); ++i) {
      check(next[r] < by_rank[r].size(),
            "prediction gather: rank " + std::to_string(r) + " sent too few rows");
      predictions.push_back(std::move(by_rank[r][next[r]++]));
      labels.push_back(examples[i].labels);
    }
  }
  eval::GenerationEvaluation result;
  eval::LossEvaluation all = combine(comm, loss, start);
  result.loss = all.eval_loss;
  result.samples = all.samples;
  result.steps = all.steps;
  result.scores = eval::score_summaries(predictions, labels, tokenizer, bootstrap_seed);
  result.runtime_s = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

#define PRECIS_INSTANTIATE(Model, Config, family)                                                 \
  template eval::LossEvaluation sharded_evaluate_loss<Model>(                                     \
      dist::Communicator&, const Model&, const std::vector<data::SummarizationExample>&, int64_t, \
      const data::CollatorOptions&);                                                              \
  template eval::GenerationEvaluation sharded_evaluate_with_generation<Model>(                    \
      dist::Communicator&, const Model&, const tokenize::TextTokenizer&,                          \
      const std::vector<data::SummarizationExample>&, int64_t, const data::CollatorOptions&,      \
      const generate::GenerationConfig&, uint32_t);
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
