// The element types the CUDA kernels read and write: fp32, and mixed precision's 16-bit compute
// types, bf16 and fp16. The 16-bit ones are their bits (a tensor's BF16 or F16 memory) and
// convert through convert_math.h, so a kernel rounds exactly as the CPU's convert does.
//
// A kernel templated on its element type T loads every element to float with load(), computes
// in fp32 (its sums in double, as its fp32 form), and writes each result once with store(),
// rounding to nearest even. For T = float both are the identity: the fp32 kernel is the same
// code and the same bits as before. So a 16-bit kernel's result is the fp32 kernel's on the
// same (16-bit) inputs, rounded once, which is what its op tests check.
#pragma once

#include <cstdint>
#include <type_traits>

#include "precis/core/dtype.h"
#include "precis/core/host_device.h"
#include "precis/kernels/convert_math.h"

namespace precis::cuda {

struct bf16 {
  uint16_t bits;
};
struct f16 {
  uint16_t bits;
};

PRECIS_HOST_DEVICE inline float load(float v) { return v; }
PRECIS_HOST_DEVICE inline float load(bf16 v) { return convert_math::from_bf16(v.bits); }
PRECIS_HOST_DEVICE inline float load(f16 v) { return convert_math::from_f16(v.bits); }

PRECIS_HOST_DEVICE inline void store(float& out, float v) { out = v; }
PRECIS_HOST_DEVICE inline void store(bf16& out, float v) { out.bits = convert_math::to_bf16(v); }
PRECIS_HOST_DEVICE inline void store(f16& out, float v) { out.bits = convert_math::to_f16(v); }

// The dtype of a tensor whose memory holds elements of T: how a launcher templated on T names
// its operands' type to a GEMM (cuda/blas.h).
template <class T>
constexpr DType dtype_of() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, f16>);
  if constexpr (std::is_same_v<T, bf16>)
    return DType::BF16;
  else if constexpr (std::is_same_v<T, f16>)
    return DType::F16;
  else
    return DType::F32;
}

}  // namespace precis::cuda
