// exp(x) in float from additions, multiplications and integer bit operations only, for the
// loops that take the exponential of a whole row (the softmax of cross-entropy over the
// vocabulary): glibc's expf is a call per element, which no loop vectorises, and it was a
// fifth of a small model's training step. Written out, the loop vectorises, and every vector
// width, -march and backend rounds the same operations in the same order, so the bits do not
// depend on the machine (the build forbids contracting a*b + c into a fused multiply-add).
//
// exp(x) = 2^n · e^r with n = round(x / ln 2) and r = x - n·ln 2 in [-ln2/2, ln2/2] (ln 2 in
// two parts, so that n·ln2_hi is exact), e^r by its Taylor polynomial of degree 7 (truncation
// below 0.03 ulp), and 2^n put in the exponent bits. Within 2 ulp of the exact value over
// [-87.33, 88.37] (tests/unit/kernels/test_exp_math.cpp checks every float there); 0 below
// (e^x < FLT_MIN: a softmax term that no float sum can feel), +inf above, NaN for NaN.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/convert_math.h"

namespace precis::exp_math {

constexpr float kLowest = -87.33654f;   // ln(FLT_MIN): below, 0
constexpr float kHighest = 88.37626f;   // 2^n·e^r still finite with n <= 127: above, +inf
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693145751953125f;           // 15 significant bits: n·kLn2Hi is exact
constexpr float kLn2Lo = 1.42860682030941723212e-6f;   // ln 2 - kLn2Hi
constexpr float kRoundMagic = 12582912.0f;             // 1.5·2^23: t + magic rounds t to an integer

PRECIS_HOST_DEVICE inline float exp(float x) {
  // Clamped into the range first (NaN fails both comparisons and stays NaN), so that n stays
  // within the exponent's range whatever x is.
  const float xc = x < kLowest ? kLowest : (x > kHighest ? kHighest : x);
  const float shifted = xc * kLog2e + kRoundMagic;  // round to nearest, ties to even
  const float n = shifted - kRoundMagic;
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n from its exponent bits: the integer n sits in the low mantissa bits of `shifted`.
  using convert_math::bits_of, convert_math::float_of;
  const uint32_t scale_bits = (bits_of(shifted) - bits_of(kRoundMagic) + 127u) << 23;
  const float value = p * float_of(scale_bits);
  return x < kLowest ? 0.0f : (x > kHighest ? __builtin_inff() : value);
}

}  // namespace precis::exp_math
