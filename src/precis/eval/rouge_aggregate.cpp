#include "precis/eval/rouge_aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "precis/core/error.h"
#include "precis/eval/numpy_legacy_random.h"

namespace precis::eval {
namespace {

double measure_of(const Score& s, int k) { return k == 0 ? s.precision : (k == 1 ? s.recall : s.fmeasure); }

void set_measure(Score& s, int k, double v) { (k == 0 ? s.precision : (k == 1 ? s.recall : s.fmeasure)) = v; }

// numpy.percentile(values, 100 * fraction) with method="linear" (NumPy 1.22+ _quantile and
// _lerp), on sorted values. The fraction goes through * 100 / 100 as it does in NumPy.
double percentile_linear(const std::vector<double>& sorted, double fraction) {
  const double q = (100.0 * fraction) / 100.0;
  const auto n = static_cast<double>(sorted.size());
  const double virtual_index = (n - 1) * q;
  if (virtual_index >= n - 1) return sorted.back();
  if (virtual_index < 0) return sorted.front();
  const double previous_index = std::floor(virtual_index);
  const double gamma = virtual_index - previous_index;
  const double a = sorted[static_cast<size_t>(previous_index)];
  const double b = sorted[static_cast<size_t>(previous_index) + 1];
  const double diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

}  // namespace

PairScores mean_scores(std::span<const PairScores> pairs) {
  PairScores mean{};
  if (pairs.empty()) return mean;
  for (int t = 0; t < kNumRougeTypes; ++t)
    for (int k = 0; k < 3; ++k) {
      double sum = 0.0;
      for (const PairScores& p : pairs) sum += measure_of(p[static_cast<size_t>(t)], k);
      set_measure(mean[static_cast<size_t>(t)], k, sum / static_cast<double>(pairs.size()));
    }
  return mean;
}

std::array<AggregateScore, kNumRougeTypes> bootstrap_scores(std::span<const PairScores> pairs,
                                                            const BootstrapOptions& options) {
  check(!pairs.empty(), "ROUGE bootstrap: no prediction/reference pair to aggregate");
  check(options.n_samples > 0, "ROUGE bootstrap: n_samples must be positive");
  check(options.confidence_interval >= 0 && options.confidence_interval <= 1,
        "ROUGE bootstrap: confidence_interval must be in [0, 1]");
  NumpyLegacyRandom rng(options.seed);
  const auto count = static_cast<int64_t>(pairs.size());
  const double delta = (1 - options.confidence_interval) / 2;
  const std::array<double, 3> fractions = {delta, 0.5, 1 - delta};

  std::array<AggregateScore, kNumRougeTypes> result{};
  std::vector<std::array<double, 3>> sample_means(static_cast<size_t>(options.n_samples));
  for (int t = 0; t < kNumRougeTypes; ++t) {
    for (auto& means : sample_means) {
      std::array<double, 3> sum = {0.0, 0.0, 0.0};  // NumPy sums axis 0 of (N, 3) row by row
      for (int64_t i = 0; i < count; ++i) {
        const Score& s = pairs[static_cast<size_t>(rng.randint(count))][static_cast<size_t>(t)];
        sum[0] += s.precision;
        sum[1] += s.recall;
        sum[2] += s.fmeasure;
      }
      for (int k = 0; k < 3; ++k) means[static_cast<size_t>(k)] = sum[static_cast<size_t>(k)] / static_cast<double>(count);
    }
    for (int k = 0; k < 3; ++k) {
      std::vector<double> column;
      column.reserve(sample_means.size());
      for (const auto& means : sample_means) column.push_back(means[static_cast<size_t>(k)]);
      std::sort(column.begin(), column.end());
      AggregateScore& a = result[static_cast<size_t>(t)];
      set_measure(a.low, k, percentile_linear(column, fractions[0]));
      set_measure(a.mid, k, percentile_linear(column, fractions[1]));
      set_measure(a.high, k, percentile_linear(column, fractions[2]));
    }
  }
  return result;
}

double round_percent(double value) {
  // glibc's printf rounds the exact binary value to nearest, ties to even, as CPython's
  // round() does through its correctly rounded dtoa.
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, "%.4f", value * 100);
  return std::strtod(buffer, nullptr);
}

}  // namespace precis::eval
