// Float accuracy in units in the last place, for the tests of the fitted math functions
// (exp_math.h, erf_math.h): the float with given bits, and how far a float result lies from
// the exact value (taken in double), in units of the float spacing there.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace precis::testing {

inline float float_from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// |got - exact| over the spacing of floats at float(exact): the smaller of the gaps to its
// neighbours, so that a value just below a power of two is measured in its own, finer, units.
inline double ulps_from(double exact, float got) {
  const float rounded = float(exact);
  const float inf = std::numeric_limits<float>::infinity();
  const double up = double(std::nextafter(rounded, inf)) - double(rounded);
  const double down = double(rounded) - double(std::nextafter(rounded, -inf));
  return std::abs(double(got) - exact) / std::min(up, down);
}

// The largest error of a sweep over many inputs, where it was, and how many were checked.
struct WorstUlps {
  double worst = 0;
  float at = 0;
  int64_t checked = 0;

  void add(float x, double ulps) {
    if (ulps > worst) worst = ulps, at = x;
    ++checked;
  }
};

}  // namespace precis::testing
