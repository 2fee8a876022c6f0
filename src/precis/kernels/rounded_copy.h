// The 16-bit copy an op may write beside an fp32 output in the same pass (a mixed-precision
// residual stream's norm, rounded for the linear layers that read it; LayerNorm's and RMSNorm's
// `rounded`): the checks and the CPU's copy its fronts share. Its bits are convert()'s.
#pragma once

#include <cstdint>

#include "precis/core/tensor.h"

namespace precis {

// `rounded`: undefined, or a BF16 or F16 tensor of `out`'s elements with `out` F32.
void check_rounded_copy(const char* op, const Tensor& out, const Tensor& rounded);

// On the CPU: out's values rounded into `rounded` where it is defined.
void write_rounded_copy_on_cpu(const Tensor& out, const Tensor& rounded);

// What a CUDA twin takes: the copy's bits (null where undefined), and whether it is bf16.
inline uint16_t* rounded_copy_bits(const Tensor& rounded) {
  return rounded.ptr ? rounded.data<uint16_t>() : nullptr;
}
inline bool rounded_copy_is_bf16(const Tensor& rounded) { return rounded.dtype == DType::BF16; }

}  // namespace precis
