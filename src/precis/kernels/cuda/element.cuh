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

#include "precis/core/dtype.h"
#include "precis/core/error.h"
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

// A 16-bit tensor's bits (Tensor::u16) as elements of T.
template <class T>
const T* as(const uint16_t* bits) {
  return reinterpret_cast<const T*>(bits);
}
template <class T>
T* as(uint16_t* bits) {
  return reinterpret_cast<T*>(bits);
}

// f(bf16{}) or f(f16{}) for a BF16 or F16 tensor: how a launcher's `_16` entry point picks
// its kernel's instantiation.
template <class F>
void with_16_bit(DType dtype, F&& f) {
  if (dtype == DType::BF16) return f(bf16{});
  if (dtype == DType::F16) return f(f16{});
  throw Error("a 16-bit CUDA kernel was given " + dtype_name(dtype) + " (expected BF16 or F16)");
}

}  // namespace precis::cuda
