// ROUGE-N by sorting: the n-grams of each side are sorted, then equal runs are merged and
// min(count_ref, count_pred) summed, which equals rouge_score's Counter intersection.
#include <algorithm>

#include "precis/eval/rouge_measures.h"

namespace precis::eval {

double fmeasure(double precision, double recall) {
  if (precision + recall > 0) return 2 * precision * recall / (precision + recall);
  return 0.0;
}

namespace {

// Start offsets of all n-grams of `tokens`, sorted by the n-gram they start.
std::vector<size_t> sorted_ngrams(std::span<const int32_t> tokens, size_t n) {
  std::vector<size_t> starts;
  if (tokens.size() >= n)
    for (size_t i = 0; i + n <= tokens.size(); ++i) starts.push_back(i);
  std::sort(starts.begin(), starts.end(), [&](size_t a, size_t b) {
    return std::lexicographical_compare(tokens.begin() + a, tokens.begin() + a + n, tokens.begin() + b,
                                        tokens.begin() + b + n);
  });
  return starts;
}

// <0, 0, >0 as the n-gram at a in x sorts before, equal to, after the one at b in y.
int compare_ngrams(std::span<const int32_t> x, size_t a, std::span<const int32_t> y, size_t b, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    if (x[a + k] != y[b + k]) return x[a + k] < y[b + k] ? -1 : 1;
  }
  return 0;
}

}  // namespace

Score rouge_n(std::span<const int32_t> reference, std::span<const int32_t> prediction, int n) {
  const size_t width = static_cast<size_t>(n);
  const std::vector<size_t> ref = sorted_ngrams(reference, width);
  const std::vector<size_t> pred = sorted_ngrams(prediction, width);
  int64_t overlap = 0;
  size_t i = 0, j = 0;
  while (i < ref.size() && j < pred.size()) {
    const int order = compare_ngrams(reference, ref[i], prediction, pred[j], width);
    if (order < 0) {
      ++i;
    } else if (order > 0) {
      ++j;
    } else {
      size_t i_end = i + 1, j_end = j + 1;
      while (i_end < ref.size() && compare_ngrams(reference, ref[i_end], reference, ref[i], width) == 0) ++i_end;
      while (j_end < pred.size() && compare_ngrams(prediction, pred[j_end], prediction, pred[j], width) == 0)
        ++j_end;
      overlap += static_cast<int64_t>(std::min(i_end - i, j_end - j));
      i = i_end;
      j = j_end;
    }
  }
  Score s;
  s.precision = static_cast<double>(overlap) / static_cast<double>(std::max<size_t>(pred.size(), 1));
  s.recall = static_cast<double>(overlap) / static_cast<double>(std::max<size_t>(ref.size(), 1));
  s.fmeasure = fmeasure(s.precision, s.recall);
  return s;
}

}  // namespace precis::eval
