// run_summarization.py's compute_metrics: decode predictions and labels (skipping special
// tokens), strip (Python's str.strip()), put each sentence on its own line (for rougeLsum),
// ROUGE with the Porter stemmer aggregated as evaluate's default (bootstrap mid of the
// F-measures), x100 rounded to 4 digits, and gen_len = mean number of non-pad tokens per
// prediction row (not rounded).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "precis/tokenize/text_tokenizer.h"

namespace precis::eval {

struct SummarizationScores {
  double rouge1 = 0, rouge2 = 0, rougeL = 0, rougeLsum = 0;  // bootstrap mid F x100, rounded
  double rouge1_mean = 0, rouge2_mean = 0, rougeL_mean = 0, rougeLsum_mean = 0;  // plain mean F, 0-1
  double gen_len = 0;
  std::vector<std::string> predictions;  // decoded and strip()ped: generated_predictions.txt

  // {"<prefix>_rouge1": ..., ..., "<prefix>_gen_len": ...} as run_summarization reports them.
  nlohmann::json metrics(const std::string& prefix) const;
};

// predictions: generated rows (start token first, pad-padded); labels: reference ids (-100 allowed).
SummarizationScores score_summaries(const std::vector<std::vector<int32_t>>& predictions,
                                    const std::vector<std::vector<int32_t>>& labels,
                                    const tokenize::TextTokenizer& tokenizer, uint32_t bootstrap_seed);

// The ROUGE part alone, on texts.
SummarizationScores score_texts(const std::vector<std::string>& predictions,
                                const std::vector<std::string>& references, uint32_t bootstrap_seed);

}  // namespace precis::eval
