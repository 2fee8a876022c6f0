// ROUGE-L and ROUGE-Lsum. The DP table is rouge_score's _lcs_table: (|ref|+1) x (|pred|+1),
// table[i][j] = LCS of ref[:i] and pred[:j].
#include <algorithm>

#include "precis/eval/rouge_measures.h"

namespace precis::eval {

int64_t lcs_length(std::span<const int32_t> a, std::span<const int32_t> b) {
  std::vector<int32_t> previous(b.size() + 1, 0), current(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j)
      current[j] = a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : std::max(previous[j], current[j - 1]);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

Score rouge_l(std::span<const int32_t> reference, std::span<const int32_t> prediction) {
  if (reference.empty() || prediction.empty()) return {};
  const auto lcs = static_cast<double>(lcs_length(reference, prediction));
  Score s;
  s.precision = lcs / static_cast<double>(prediction.size());
  s.recall = lcs / static_cast<double>(reference.size());
  s.fmeasure = fmeasure(s.precision, s.recall);
  return s;
}

std::vector<int32_t> lcs_reference_indices(std::span<const int32_t> reference,
                                           std::span<const int32_t> prediction) {
  const size_t rows = reference.size(), cols = prediction.size();
  std::vector<int32_t> table((rows + 1) * (cols + 1), 0);  // (rows+1, cols+1)
  auto at = [&](size_t i, size_t j) -> int32_t& { return table[i * (cols + 1) + j]; };
  for (size_t i = 1; i <= rows; ++i)
    for (size_t j = 1; j <= cols; ++j)
      at(i, j) = reference[i - 1] == prediction[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
  std::vector<int32_t> indices;
  size_t i = rows, j = cols;
  while (i > 0 && j > 0) {
    if (reference[i - 1] == prediction[j - 1]) {
      indices.push_back(static_cast<int32_t>(i - 1));
      --i;
      --j;
    } else if (at(i, j - 1) > at(i - 1, j)) {
      --j;
    } else {
      --i;
    }
  }
  std::reverse(indices.begin(), indices.end());
  return indices;
}

Score rouge_lsum(const std::vector<TokenIds>& reference_sentences,
                 const std::vector<TokenIds>& prediction_sentences, int32_t vocabulary_size) {
  if (reference_sentences.empty() || prediction_sentences.empty()) return {};
  size_t m = 0, n = 0;  // token counts of the reference and of the prediction
  std::vector<int64_t> unused_reference(static_cast<size_t>(vocabulary_size), 0);
  std::vector<int64_t> unused_prediction(static_cast<size_t>(vocabulary_size), 0);
  for (const TokenIds& s : reference_sentences) {
    m += s.size();
    for (int32_t t : s) ++unused_reference[static_cast<size_t>(t)];
  }
  for (const TokenIds& s : prediction_sentences) {
    n += s.size();
    for (int32_t t : s) ++unused_prediction[static_cast<size_t>(t)];
  }
  if (m == 0 || n == 0) return {};

  int64_t hits = 0;
  std::vector<char> in_union;
  for (const TokenIds& r : reference_sentences) {
    in_union.assign(r.size(), 0);
    for (const TokenIds& c : prediction_sentences)
      for (int32_t k : lcs_reference_indices(r, c)) in_union[static_cast<size_t>(k)] = 1;
    for (size_t k = 0; k < r.size(); ++k) {
      if (!in_union[k]) continue;
      const auto t = static_cast<size_t>(r[k]);
      if (unused_prediction[t] > 0 && unused_reference[t] > 0) {
        ++hits;
        --unused_prediction[t];
        --unused_reference[t];
      }
    }
  }
  Score s;
  s.recall = static_cast<double>(hits) / static_cast<double>(m);
  s.precision = static_cast<double>(hits) / static_cast<double>(n);
  s.fmeasure = fmeasure(s.precision, s.recall);
  return s;
}

}  // namespace precis::eval
