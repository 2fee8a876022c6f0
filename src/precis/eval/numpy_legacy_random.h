// The integers NumPy's legacy global RNG draws after `numpy.random.seed(seed)`:
// MT19937 seeded with init_genrand (std::mt19937 is the same generator), and
// `randint(0, high)` by masked rejection sampling (numpy/random/src/distributions:
// random_bounded_uint64_fill with use_masked=True). `numpy.random.choice(N, size=k)` is
// k such draws. This is what lets the ROUGE bootstrap reproduce rouge_score's numbers.
#pragma once

#include <cstdint>
#include <random>

namespace precis::eval {

class NumpyLegacyRandom {
 public:
  explicit NumpyLegacyRandom(uint32_t seed) : mt_(seed) {}

  // One draw of numpy.random.randint(0, high), high >= 1. high == 1 consumes nothing.
  int64_t randint(int64_t high);

 private:
  std::mt19937 mt_;
};

}  // namespace precis::eval
