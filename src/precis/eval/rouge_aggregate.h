// Corpus-level ROUGE from per-pair scores: the plain mean (what evaluate's
// use_aggregator=False lists average to), and rouge_score's BootstrapAggregator, whose
// `mid.fmeasure` is what evaluate.load("rouge").compute() returns by default and so what
// run_summarization reports.
#pragma once

#include <cstdint>
#include <span>

#include "precis/eval/rouge_scorer.h"

namespace precis::eval {

// Mean of each measure over the pairs, summed in order. Zero scores for no pair.
PairScores mean_scores(std::span<const PairScores> pairs);

struct AggregateScore {
  Score low, mid, high;
};

struct BootstrapOptions {
  uint32_t seed = 0;            // as numpy.random.seed(seed) just before aggregate()
  int n_samples = 1000;         // BootstrapAggregator defaults
  double confidence_interval = 0.95;
};

// For each ROUGE type in kRougeTypeNames order: n_samples resamples of the pairs with
// replacement (numpy.random.choice on NumPy's legacy global RNG), the mean of each
// resample, then the (1-ci)/2, 0.5 and 1-(1-ci)/2 percentiles of those means with NumPy's
// linear interpolation. Equal to rouge_score's numbers when NumPy's global RNG was seeded
// with `seed` right before aggregate() and nothing else drew from it in between.
std::array<AggregateScore, kNumRougeTypes> bootstrap_scores(std::span<const PairScores> pairs,
                                                            const BootstrapOptions& options);

// run_summarization's reporting: round(value * 100, 4), Python's correctly rounded
// round-half-even on the exact binary value.
double round_percent(double value);

}  // namespace precis::eval
