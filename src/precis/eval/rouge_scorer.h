// One prediction/reference pair to its four ROUGE scores, as
// rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer).score(
// reference, prediction) computes them, split_summaries=False (as `evaluate` uses it):
// ROUGE-Lsum sees the sentences the text already has on separate lines.
#pragma once

#include <array>
#include <string_view>

#include "precis/eval/rouge_measures.h"
#include "precis/eval/rouge_tokenize.h"

namespace precis::eval {

enum RougeType { kRouge1 = 0, kRouge2 = 1, kRougeL = 2, kRougeLsum = 3 };
inline constexpr int kNumRougeTypes = 4;
// In rouge_score's result order; the bootstrap draws its resamples in this order too.
inline constexpr std::array<std::string_view, kNumRougeTypes> kRougeTypeNames = {"rouge1", "rouge2", "rougeL",
                                                                                  "rougeLsum"};

using PairScores = std::array<Score, kNumRougeTypes>;  // indexed by RougeType

class RougeScorer {
 public:
  explicit RougeScorer(bool use_stemmer) : use_stemmer_(use_stemmer) {}

  PairScores score(std::string_view reference, std::string_view prediction);

 private:
  bool use_stemmer_;
  CachedStemmer stemmer_;
};

}  // namespace precis::eval
