// erf(x) in float from additions, multiplications, one division and exp_math::exp, for the
// exact GELU (v·Φ(v), Φ(v) = (1 + erf(v/√2))/2) over a whole activation: glibc's erff is a call
// per element, which no loop vectorises, and the GELU's forward and backward were a tenth of a
// small model's training step. Like exp_math.h, the same operations in the same order on every
// vector width, -march and backend.
//
// Two pieces, both odd in x:
//  - |x| < 0.9: erf(x) = x + x·P(x²), P of degree 6 (erf(x)/x - 1, relative error 3e-10);
//    adding the small correction x·P to x rounds once where it matters;
//  - 0.9 <= |x| < 4: erf(x) = 1 - exp(-x²)·R(1/|x|), R of degree 9 in 1/|x| - 0.6806 (the
//    scaled complement erfc(x)·exp(x²), relative error 4e-8);
//  - |x| >= 4: ±1 (erf(x) rounds to 1 in float from 3.92 on); NaN stays NaN.
// The coefficients are least-squares fits, reweighted towards the minimax, of Python's
// math.erf / math.erfc. Within 1.4 ulp of the exact value (tests/unit/kernels/test_erf_math.cpp
// checks a sweep of its range).
#pragma once

#include "precis/core/host_device.h"
#include "precis/kernels/exp_math.h"

namespace precis::erf_math {

constexpr float kSplit = 0.9f;
constexpr float kOne = 4.0f;          // from here on, erf(x) rounds to ±1
constexpr float kTailCentre = 0.6805555556f;  // the middle of 1/|x| over [0.9, 4]

PRECIS_HOST_DEVICE inline float erf(float x) {
  const float ax = x < 0.0f ? -x : x;
  // erf(x)/x - 1 as a polynomial in t = x².
  const float t = x * x;
  float p = 8.513331704e-05f;
  p = p * t + -8.175699622e-04f;
  p = p * t + 5.203865469e-03f;
  p = p * t + -2.686051093e-02f;
  p = p * t + 1.128371507e-01f;
  p = p * t + -3.761263490e-01f;
  p = p * t + 1.283791661e-01f;
  const float small = x + x * p;
  // erfc(|x|)·exp(x²) as a polynomial in u = 1/|x| - kTailCentre.
  const float u = 1.0f / ax - kTailCentre;
  float r = 1.764111407e-02f;
  r = r * u + 3.312544140e-04f;
  r = r * u + -2.595007047e-02f;
  r = r * u + 3.524219990e-02f;
  r = r * u + -3.383480385e-02f;
  r = r * u + 1.202868484e-02f;
  r = r * u + 4.762549698e-02f;
  r = r * u + -1.647405922e-01f;
  r = r * u + 3.635481596e-01f;
  r = r * u + 3.266665936e-01f;
  // NaN fails `ax >= kOne` and goes through the tail, which keeps it NaN.
  const float tail = ax >= kOne ? 1.0f : 1.0f - exp_math::exp(-t) * r;
  const float large = x < 0.0f ? -tail : tail;
  return ax < kSplit ? small : large;
}

}  // namespace precis::erf_math
