#include "precis/core/dtype.h"

#include <bit>
#include <cmath>

namespace precis {

std::string dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::BF16: return "BF16";
    case DType::F16: return "F16";
    case DType::I32: return "I32";
    case DType::I64: return "I64";
    case DType::F64: return "F64";
  }
  return "?";
}

float bf16_to_float(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

uint16_t float_to_bf16(float value) {
  uint32_t u = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return uint16_t((u >> 16) | 0x40);  // keep it a quiet NaN
  u += 0x7FFF + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

float f16_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FF;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000 | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: value = mantissa * 2^-24.
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t float_to_f16(float value) {
  uint32_t u = std::bit_cast<uint32_t>(value);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7FFFFFFF;
  if (abs > 0x7F800000) return sign | 0x7E00;             // NaN
  if (abs >= 0x477FF000) return sign | 0x7C00;            // overflow (>= 65520) to inf
  if (abs < 0x38800000) {                                 // subnormal or zero in f16
    float magnitude = std::bit_cast<float>(abs);
    float scaled = magnitude * 16777216.0f;               // 2^24: units of the f16 subnormal step
    return sign | uint16_t(std::nearbyint(scaled));
  }
  uint32_t rounded = abs + 0xFFF + ((abs >> 13) & 1);
  return sign | uint16_t((rounded - 0x38000000) >> 13);
}

}  // namespace precis
