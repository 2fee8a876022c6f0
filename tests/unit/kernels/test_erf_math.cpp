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

namespace {

float our_erf(float x) { return precis::erf_math::erf(x); }

double erf_ulp_error(float x, float got) {
  return precis::testing::ulps_from(std::erf(double(x)), got);
}

}  // namespace

TEST(ErfMath, WithinOneAndAQuarterUlpAndOdd) {
  precis::testing::WorstUlps sweep;
  // From the smallest normal float up to 4.5, every 1021st bit pattern.
  for (uint32_t bits = 0x00800000u;; bits += 1021) {
    const float x = float_from_bits(bits);
    if (x > 4.5f) break;
    const float got = our_erf(x);
    ASSERT_EQ(our_erf(-x), -got) << "erf is odd, at x = " << x;
    sweep.add(x, erf_ulp_error(x, got));
  }
  EXPECT_GT(sweep.checked, 1000000);
  EXPECT_LE(sweep.worst, 1.25) << "at x = " << sweep.at;
  // Around the split between the polynomial in x² and the scaled complement.
  for (float x = precis::erf_math::kSplit * 0.999f; x < precis::erf_math::kSplit * 1.001f;
       x = std::nextafter(x, 2.0f))
    EXPECT_LE(erf_ulp_error(x, our_erf(x)), 1.25) << "at x = " << x;
}

TEST(ErfMath, Edges) {
  EXPECT_EQ(our_erf(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(our_erf(-0.0f)));
  EXPECT_EQ(our_erf(4.0f), 1.0f);
  EXPECT_EQ(our_erf(-7.5f), -1.0f);
  EXPECT_EQ(our_erf(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(our_erf(-std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(our_erf(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_FLOAT_EQ(our_erf(1e-30f), 1.1283791671e-30f);  // 2x/√π near 0
}
