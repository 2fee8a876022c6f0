#include "precis/kernels/rounded_copy.h"

#include <string>

#include "precis/core/error.h"
#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

void check_rounded_copy(const char* op, const Tensor& out, const Tensor& rounded) {
  check(!rounded.ptr || ((rounded.dtype == DType::BF16 || rounded.dtype == DType::F16) &&
                         out.dtype == DType::F32 && rounded.numel() == out.numel()),
        std::string(op) + ": rounded " + rounded.describe() + " for " + out.describe() +
            " (a BF16 or F16 copy of an F32 output)");
}

void write_rounded_copy_on_cpu(const Tensor& out, const Tensor& rounded) {
  if (rounded.ptr)
    cpu::convert_to_16(out.f32(), rounded.data<uint16_t>(), out.numel(),
                       rounded_copy_is_bf16(rounded));
}

}  // namespace precis
