#include "precis/kernels/convert.h"

#include <string>

#include "precis/kernels/copy.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

namespace precis {

void convert(const Tensor& src, const Tensor& dst) {
  check(src.numel() == dst.numel(), "convert: " + src.describe() + " -> " + dst.describe());
  if (src.dtype == dst.dtype) return copy(src, dst);
  const bool narrowing =
      src.dtype == DType::F32 && (dst.dtype == DType::BF16 || dst.dtype == DType::F16);
  const bool widening =
      dst.dtype == DType::F32 && (src.dtype == DType::BF16 || src.dtype == DType::F16);
  check(narrowing || widening, "convert: " + src.describe() + " -> " + dst.describe() +
                                   " (F32 to and from BF16 or F16 only)");
  dispatch_op(
      "convert", {&src, &dst},
      [&] {
        narrowing ? cpu::convert_to_16(src.f32(), dst.data<uint16_t>(), src.numel(),
                                       dst.dtype == DType::BF16)
                  : cpu::convert_from_16(src.data<const uint16_t>(), dst.f32(), src.numel(),
                                         src.dtype == DType::BF16);
      },
      [&](const CudaOp& gpu) {
        narrowing ? gpu.run(&cuda::Kernels::convert_to_16, src.f32(), dst.data<uint16_t>(),
                            src.numel(), dst.dtype == DType::BF16)
                  : gpu.run(&cuda::Kernels::convert_from_16, src.data<const uint16_t>(), dst.f32(),
                            src.numel(), src.dtype == DType::BF16);
      });
}

}  // namespace precis
