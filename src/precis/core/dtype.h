// Element types a tensor can hold (devices: device.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace precis {

// F64: scalars that accumulate on a device (the step's loss), as the host sums them in double.
enum class DType : uint8_t { F32, BF16, F16, I32, I64, F64 };

constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::BF16: return 2;
    case DType::F16: return 2;
    case DType::I32: return 4;
    case DType::I64: return 8;
    case DType::F64: return 8;
  }
  return 0;
}

std::string dtype_name(DType t);

// Mixed precision's compute types (a CUDA kernel's bf16 and fp16 forms, cuda/kernels_cuda.h).
constexpr bool is_16_bit(DType t) { return t == DType::BF16 || t == DType::F16; }

// Conversions used at load time (checkpoint files hold F16/BF16; compute is F32 on CPU).
float bf16_to_float(uint16_t bits);
uint16_t float_to_bf16(float value);  // round to nearest even, as torch does
float f16_to_float(uint16_t bits);
uint16_t float_to_f16(float value);  // round to nearest even

}  // namespace precis
