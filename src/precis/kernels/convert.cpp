#include "precis/kernels/convert.h"

#include <string>

#include "precis/kernels/copy.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

void convert(const Tensor& src, const Tensor& dst) {
  check(src.numel() == dst.numel(), "convert: " + src.describe() + " -> " + dst.describe());
  if (src.dtype == dst.dtype) return copy(src, dst);
  const bool narrowing = src.dtype == DType::F32 && (dst.dtype == DType::BF16 || dst.dtype == DType::F16);
  const bool widening = dst.dtype == DType::F32 && (src.dtype == DType::BF16 || src.dtype == DType::F16);
  check(narrowing || widening, "convert: " + src.describe() + " -> " + dst.describe() +
                                   " (F32 to and from BF16 or F16 only)");
  OpTimer op_timer("convert");
  const Device d = op_device("convert", {&src, &dst});
  switch (d.kind) {
    case DeviceKind::CPU:
      return narrowing ? cpu::convert_to_16(src.f32(), dst.data<uint16_t>(), src.numel(),
                                            dst.dtype == DType::BF16)
                       : cpu::convert_from_16(src.data<const uint16_t>(), dst.f32(), src.numel(),
                                              src.dtype == DType::BF16);
    case DeviceKind::CUDA:
      return narrowing ? cuda::twin(&cuda::Kernels::convert_to_16, "convert", d)(
                             src.f32(), dst.data<uint16_t>(), src.numel(),
                             dst.dtype == DType::BF16, op_stream(d))
                       : cuda::twin(&cuda::Kernels::convert_from_16, "convert", d)(
                             src.data<const uint16_t>(), dst.f32(), src.numel(),
                             src.dtype == DType::BF16, op_stream(d));
  }
  no_backend("convert", d);
}

}  // namespace precis
