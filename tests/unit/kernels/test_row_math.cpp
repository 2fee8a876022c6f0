// row_math's exponential sum and row maximum (kernels/row_math.h) as the library is built: its
// AVX-512 form (where the library's -march has it; this test's own code is built without -march and
// computes the portable form) gives the portable form's sum and exponentials bit for bit, on
// every row length around its 16- and 8-wide steps and tails, and on the values at exp_math's edges
// (below ln(FLT_MIN) to 0, above the overflow limit to +inf, -inf to 0, NaN kept).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "precis/kernels/cpu/logits_rows.h"
#include "precis/kernels/row_math.h"

namespace precis {
namespace {

TEST(RowExpSum, TheLibrarysFormIsThePortableOne) {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 6.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> edges = {-inf,  -200.0f, -87.34f, -87.33f, 0.0f,
                                    -0.0f, 88.37f,  88.38f,  150.0f,  inf};
  for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 511, 512, 513, 8000, 8003}) {
    SCOPED_TRACE(std::to_string(n) + " values");
    std::vector<float> row(static_cast<size_t>(n));
    for (float& x : row) x = normal(gen);
    for (size_t i = 0; i < edges.size() && i < row.size(); ++i)
      row[(i * 37) % row.size()] = edges[i];
    for (bool with_nan : {false, true}) {
      if (with_nan) row[row.size() / 2] = std::nanf("");
      for (float max : {0.0f, 3.5f, -90.0f}) {
        std::vector<float> ours(row.size(), -1.0f), portable(row.size(), -1.0f);
        const double sum = cpu::row_exp_sum_as_built(row.data(), n, max, ours.data());
        const double reference =
            row_math::row_exp_sum_portable(row.data(), n, max, portable.data());
        EXPECT_EQ(std::memcmp(ours.data(), portable.data(), row.size() * sizeof(float)), 0)
            << "max " << max << (with_nan ? ", with a NaN" : "");
        EXPECT_EQ(std::memcmp(&sum, &reference, sizeof sum), 0) << sum << " vs " << reference;
        const double without = cpu::row_exp_sum_as_built(row.data(), n, max, nullptr);
        EXPECT_EQ(std::memcmp(&without, &sum, sizeof sum), 0) << "without out";
      }
      const float ours_max = cpu::row_max_as_built(row.data(), n);
      const float portable_max = row_math::row_max_portable(row.data(), n);
      EXPECT_EQ(std::memcmp(&ours_max, &portable_max, sizeof ours_max), 0)
          << ours_max << " vs " << portable_max << (with_nan ? ", with a NaN" : "");
    }
  }
}

}  // namespace
}  // namespace precis
