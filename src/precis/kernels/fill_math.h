// fill_normal's draw (kernels/fill.h), run by both twins: standard normal number `index` of
// (seed, stream) by Box-Muller on two 32-bit Philox draws, in double,
// rounded to float, then scaled by std in double and rounded again (the order precis's
// initial weights have always had).
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/core/philox.h"

namespace precis::fill_math {

PRECIS_HOST_DEVICE inline float normal_draw(double std, uint64_t seed, uint64_t stream,
                                            uint64_t index) {
  const uint32_t a = philox::random_bits(seed, stream, 2 * index);
  const uint32_t b = philox::random_bits(seed, stream, 2 * index + 1);
  const double u1 = (double(a) + 1.0) / 4294967296.0;  // (0, 1]
  const double u2 = double(b) / 4294967296.0;
#if defined(__CUDA_ARCH__)
  // cospi needs no range reduction: cos's general one (Payne-Hanek) takes local memory, and
  // the argument is in [0, 2π) anyway. The two agree to an ulp of double, which the rounding
  // to float hides but for the rare draw near a float boundary.
  const double c = cospi(2.0 * u2);
#else
  const double c = std::cos(6.283185307179586 * u2);
#endif
  const float z = float(std::sqrt(-2.0 * std::log(u1)) * c);
  return float(std * z);
}

}  // namespace precis::fill_math
