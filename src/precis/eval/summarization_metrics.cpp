#include "precis/eval/summarization_metrics.h"

#include <cmath>

#include "precis/eval/python_text.h"
#include "precis/eval/rouge_aggregate.h"
#include "precis/eval/rouge_scorer.h"
#include "precis/eval/sentence_split.h"
#include "precis/kernels/cross_entropy.h"

namespace precis::eval {

nlohmann::json SummarizationScores::metrics(const std::string& p) const {
  return {{p + "_rouge1", rouge1}, {p + "_rouge2", rouge2}, {p + "_rougeL", rougeL},
          {p + "_rougeLsum", rougeLsum}, {p + "_gen_len", gen_len}};
}

SummarizationScores score_texts(const std::vector<std::string>& predictions,
                                const std::vector<std::string>& references, uint32_t seed) {
  check(predictions.size() == references.size() && !predictions.empty(),
        "ROUGE needs as many predictions as references, and at least one");
  RougeScorer scorer(true);
  std::vector<PairScores> pairs;
  SummarizationScores s;
  for (size_t i = 0; i < predictions.size(); ++i) {
    // postprocess_text: Python's strip() of each text, then one sentence per line; the
    // stripped prediction is also what generated_predictions.txt holds (pred.strip()).
    const std::string_view prediction = python_text::strip(predictions[i]);
    s.predictions.emplace_back(prediction);
    pairs.push_back(
        scorer.score(sentences_on_lines(references[i]), sentences_on_lines(prediction)));
  }
  auto boot = bootstrap_scores(pairs, {seed, 1000, 0.95});
  PairScores mean = mean_scores(pairs);
  s.rouge1 = round_percent(boot[kRouge1].mid.fmeasure);
  s.rouge2 = round_percent(boot[kRouge2].mid.fmeasure);
  s.rougeL = round_percent(boot[kRougeL].mid.fmeasure);
  s.rougeLsum = round_percent(boot[kRougeLsum].mid.fmeasure);
  s.rouge1_mean = mean[kRouge1].fmeasure;
  s.rouge2_mean = mean[kRouge2].fmeasure;
  s.rougeL_mean = mean[kRougeL].fmeasure;
  s.rougeLsum_mean = mean[kRougeLsum].fmeasure;
  return s;
}

SummarizationScores score_summaries(const std::vector<std::vector<int32_t>>& predictions,
                                    const std::vector<std::vector<int32_t>>& labels,
                                    const tokenize::TextTokenizer& tokenizer, uint32_t seed) {
  const int32_t pad = tokenizer.pad_token_id();
  std::vector<std::string> preds, refs;
  double tokens = 0;
  for (const auto& row : predictions) {
    preds.push_back(tokenizer.decode(row));
    for (int32_t id : row) tokens += id != pad && id != kIgnoreIndex;
  }
  for (const auto& row : labels) {
    std::vector<int32_t> ids;
    for (int32_t id : row) ids.push_back(id == kIgnoreIndex ? pad : id);
    refs.push_back(tokenizer.decode(ids));
  }
  SummarizationScores s = score_texts(preds, refs, seed);
  s.gen_len = tokens / double(predictions.size());  // np.mean, which compute_metrics does not round
  return s;
}

}  // namespace precis::eval
