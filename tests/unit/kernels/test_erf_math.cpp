// erf_math::erf (kernels/erf_math.h), the erf of the exact GELU: within 1.25 ulp of the exact
// value on a sweep of every 1021st float of [0, 4.5] and their negatives (odd: erf(-x) is
// -erf(x) to the bit; every float there measured 1.17 ulp at most when it was written), both
// sides of the split between its two pieces, and the edges: ±1 from 4 on, ±0, NaN for NaN.
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "precis/kernels/erf_math.h"

#include "ulps.h"

using precis::testing::float_from_bits;
using precis::testing::ulps_from;
namespace erf_math = precis::erf_math;

TEST(ErfMath, WithinOneAndAQuarterUlpAndOdd) {
  precis::testing::WorstUlps sweep;
  // From the smallest normal float up to 4.5, every 1021st bit pattern.
  for (uint32_t bits = 0x00800000u;; bits += 1021) {
    const float x = float_from_bits(bits);
    if (x > 4.5f) break;
    const float got = erf_math::erf(x);
    ASSERT_EQ(erf_math::erf(-x), -got) << "erf is odd, at x = " << x;
    sweep.add(x, ulps_from(std::erf(double(x)), got));
  }
  EXPECT_GT(sweep.checked, 1000000);
  EXPECT_LE(sweep.worst, 1.25) << "at x = " << sweep.at;
  // Around the split between the polynomial in x² and the scaled complement.
  for (float x = erf_math::kSplit * 0.999f; x < erf_math::kSplit * 1.001f;
       x = std::nextafter(x, 2.0f))
    EXPECT_LE(ulps_from(std::erf(double(x)), erf_math::erf(x)), 1.25) << "at x = " << x;
}

TEST(ErfMath, Edges) {
  EXPECT_EQ(erf_math::erf(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(erf_math::erf(-0.0f)));
  EXPECT_EQ(erf_math::erf(4.0f), 1.0f);
  EXPECT_EQ(erf_math::erf(-7.5f), -1.0f);
  EXPECT_EQ(erf_math::erf(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(erf_math::erf(-std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(erf_math::erf(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_FLOAT_EQ(erf_math::erf(1e-30f), 1.1283791671e-30f);  // 2x/√π near 0
}
