// The rows the normalisation ops' bit-for-bit tests (test_layernorm.cpp, test_rms_norm.cpp) run
// their backward on: x and the incoming gradient dy over rows x cols and a weight of cols, each
// uniform in [-1, 1), drawn from `rng` in this order.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernel_test.h"

namespace precis::testing {

struct NormRows {
  int64_t rows, cols;
  std::vector<float> x, dy, weight;

  NormRows(int64_t rows_, int64_t cols_, std::mt19937& rng)
      : rows(rows_),
        cols(cols_),
        x(random_floats(rows * cols, rng)),
        dy(random_floats(rows * cols, rng)),
        weight(random_floats(cols, rng)) {}

  // Host tensors over the rows' vectors, and a vector of one value per row (the statistics).
  Tensor x_on_cpu() { return on_cpu(x, {rows, cols}); }
  Tensor dy_on_cpu() { return on_cpu(dy, {rows, cols}); }
  Tensor weight_on_cpu() { return on_cpu(weight, {cols}); }
  std::vector<float> per_row() const { return std::vector<float>(size_t(rows)); }
  std::vector<float> like_x() const { return std::vector<float>(x.size()); }
  std::vector<float> like_weight() const { return std::vector<float>(weight.size()); }
};

}  // namespace precis::testing
