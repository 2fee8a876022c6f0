// One element of convert (convert.h): fp32 to bf16 or fp16, rounding to nearest even as torch's
// .to() does, and back, exactly. Shared by the CPU loop (cpu/convert_cpu.cpp) and the CUDA
// kernel, so a 16-bit compute copy is the same bits on either device. The same conversions as
// core/dtype.h's load-time ones, on bits only (memcpy, no std::bit_cast: nvcc compiles these as
// device code too), which the op test checks word for word against them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "precis/core/host_device.h"

namespace precis::convert_math {

PRECIS_HOST_DEVICE inline uint32_t bits_of(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof u);
  return u;
}

PRECIS_HOST_DEVICE inline float float_of(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// bf16 is fp32's top half: add just under half of the dropped 16 bits, plus the kept last bit
// (ties to even), then cut. A NaN keeps its sign and top mantissa bits and is made quiet, so no
// NaN rounds into an infinity. The NaN test is on the bits and the choice a select, with no
// branch, so loops over it vectorise (the CPU's bf16 GEMM packs its operands through it).
PRECIS_HOST_DEVICE inline uint16_t to_bf16(float value) {
  const uint32_t u = bits_of(value);
  const bool nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
  return uint16_t(nan ? (u >> 16) | 0x40u : (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

PRECIS_HOST_DEVICE inline float from_bf16(uint16_t bits) { return float_of(uint32_t(bits) << 16); }

// fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. From 65520 (halfway between the largest
// fp16, 65504, and 2^16) up it is infinity; below 2^-14 it is a subnormal, counted in steps of
// 2^-24 and rounded to the nearest even step by nearbyint (the default rounding mode).
PRECIS_HOST_DEVICE inline uint16_t to_f16(float value) {
  const uint32_t u = bits_of(value);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000);
  const uint32_t magnitude = u & 0x7FFFFFFF;
  if (magnitude > 0x7F800000) return sign | 0x7E00;         // NaN
  if (magnitude >= 0x477FF000) return sign | 0x7C00;        // 65520 and up: infinity
  if (magnitude < 0x38800000) {                             // below 2^-14: subnormal or zero
    const float steps = float_of(magnitude) * 16777216.0f;  // in units of 2^-24, exact
    return sign | uint16_t(std::nearbyint(steps));
  }
  // Rebias the exponent (127 -> 15) and round the mantissa's 13 dropped bits to nearest even.
  const uint32_t rounded = magnitude + 0xFFF + ((magnitude >> 13) & 1);
  return sign | uint16_t((rounded - 0x38000000) >> 13);
}

// bf16 (bf16 true) or fp16, as the flag the ops pass says.
PRECIS_HOST_DEVICE inline uint16_t to_16(float value, bool bf16) {
  return bf16 ? to_bf16(value) : to_f16(value);
}

PRECIS_HOST_DEVICE inline float from_f16(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1F;
  const uint32_t mantissa = h & 0x3FF;
  if (exponent == 0x1F) return float_of(sign | 0x7F800000 | (mantissa << 13));  // inf, NaN
  if (exponent == 0) {
    // Zero or subnormal: mantissa · 2^-24, exact in fp32 (a normal float from 2^-24 up).
    const float magnitude = float(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

}  // namespace precis::convert_math
