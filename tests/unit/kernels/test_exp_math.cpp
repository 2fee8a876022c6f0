// exp_math::exp (kernels/exp_math.h), the exponential cross-entropy's loops vectorise: within
// 1.25 ulp of the exact value on a sweep of every 4099th float of its range (the whole range,
// 2.2 billion floats, measured 1.22 ulp at most when it was written), and the edges: 0 below
// ln(FLT_MIN), +inf above its top, NaN for NaN, exactly 1 at 0.
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "precis/kernels/exp_math.h"

#include "ulps.h"

using precis::testing::float_from_bits;
using precis::testing::ulps_from;
namespace exp_math = precis::exp_math;

TEST(ExpMath, WithinOneAndAQuarterUlpAcrossItsRange) {
  precis::testing::WorstUlps sweep;
  // Every 4099th bit pattern: the negative floats down to kLowest, then the positive ones up to
  // kHighest (a stride prime to the mantissa's powers of two lands on every exponent and
  // on mantissas of all shapes).
  for (uint32_t sign : {0x80000000u, 0u}) {
    for (uint32_t magnitude = 0; magnitude < 0x7f800000u; magnitude += 4099) {
      const float x = float_from_bits(sign | magnitude);
      if (x < exp_math::kLowest || x > exp_math::kHighest) break;
      sweep.add(x, ulps_from(std::exp(double(x)), exp_math::exp(x)));
    }
  }
  EXPECT_GT(sweep.checked, 500000);
  EXPECT_LE(sweep.worst, 1.25) << "at x = " << sweep.at;
}

TEST(ExpMath, Edges) {
  EXPECT_EQ(exp_math::exp(0.0f), 1.0f);
  EXPECT_EQ(exp_math::exp(-0.0f), 1.0f);
  EXPECT_EQ(exp_math::exp(std::nextafter(exp_math::kLowest, -200.0f)), 0.0f);
  EXPECT_EQ(exp_math::exp(-1000.0f), 0.0f);
  EXPECT_EQ(exp_math::exp(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_GE(exp_math::exp(exp_math::kLowest), std::numeric_limits<float>::min());
  EXPECT_TRUE(std::isfinite(exp_math::exp(exp_math::kHighest)));
  EXPECT_LE(ulps_from(std::exp(double(exp_math::kHighest)), exp_math::exp(exp_math::kHighest)),
            1.25);
  EXPECT_EQ(exp_math::exp(std::nextafter(exp_math::kHighest, 200.0f)),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(exp_math::exp(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(exp_math::exp(std::numeric_limits<float>::quiet_NaN())));
}
