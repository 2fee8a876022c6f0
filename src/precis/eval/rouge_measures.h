// The ROUGE measures of one prediction against one reference, on token ids (equal ids =
// equal tokens), as rouge_score's rouge_scorer.py computes them. Every result is a Score
// with rouge_score's arithmetic: P = hits / #prediction units, R = hits / #reference units,
// F = 2 * P * R / (P + R), or 0 when P + R is 0.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace precis::eval {

struct Score {
  double precision = 0.0;
  double recall = 0.0;
  double fmeasure = 0.0;
};

using TokenIds = std::vector<int32_t>;

// scoring.fmeasure, evaluated in the same order as Python: (2 * p) * r / (p + r).
double fmeasure(double precision, double recall);

// ROUGE-N: clipped n-gram overlap, sum over n-grams of min(count in reference, count in
// prediction); each count is divided by max(#n-grams, 1), so empty texts score 0.
Score rouge_n(std::span<const int32_t> reference, std::span<const int32_t> prediction, int n);

// Length of the longest common subsequence (O(|a|) memory).
int64_t lcs_length(std::span<const int32_t> a, std::span<const int32_t> b);

// ROUGE-L: LCS over the whole texts; 0 when either side has no token.
Score rouge_l(std::span<const int32_t> reference, std::span<const int32_t> prediction);

// The reference indices of the one LCS that rouge_score's _backtrack_norec reads out of the
// DP table, in increasing order. Ties: a match is taken when the tokens are equal; otherwise
// the walk goes left when table[i][j-1] > table[i-1][j], else up.
std::vector<int32_t> lcs_reference_indices(std::span<const int32_t> reference,
                                           std::span<const int32_t> prediction);

// ROUGE-Lsum (summary-level LCS, section 3.2 of Lin 2004, with rouge_score's bookkeeping):
// for each reference sentence the union of its LCS index sets against every prediction
// sentence; each token of that union is a hit while both the prediction and the reference
// still have an unused occurrence of it. Ids must lie in [0, vocabulary_size).
Score rouge_lsum(const std::vector<TokenIds>& reference_sentences,
                 const std::vector<TokenIds>& prediction_sentences, int32_t vocabulary_size);

}  // namespace precis::eval
