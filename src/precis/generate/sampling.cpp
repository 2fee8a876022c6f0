#include "precis/generate/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace precis::generate {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

double uniform(uint64_t seed, uint64_t stream, uint64_t counter) {
  uint64_t key = splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ counter);
  return double(key >> 11) * 0x1.0p-53;  // 53 random bits
}

int32_t sample_from_scores(std::span<const float> scores, double u) {
  float max = -std::numeric_limits<float>::infinity();
  for (float x : scores) max = std::max(max, x);
  if (max == -std::numeric_limits<float>::infinity()) return -1;
  double total = 0;
  for (float x : scores)
    if (x != -std::numeric_limits<float>::infinity()) total += std::exp(double(x) - double(max));
  const double target = u * total;
  double cumulative = 0;
  int32_t last = -1;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (scores[i] == -std::numeric_limits<float>::infinity()) continue;
    double p = std::exp(double(scores[i]) - double(max));
    if (p <= 0) continue;
    cumulative += p;
    last = int32_t(i);
    if (cumulative > target) return last;
  }
  return last;  // rounding left target at the very end
}

}  // namespace precis::generate
