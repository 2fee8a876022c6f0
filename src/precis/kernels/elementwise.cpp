#include "precis/kernels/elementwise.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

void add(const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel() && b.dtype == a.dtype &&
            out.dtype == a.dtype,
        "add: " + a.describe() + " + " + b.describe() + " -> " + out.describe());
  OpTimer op_timer("add");
  const Device d = op_device("add", {&a, &b, &out});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::add(a.f32(), b.f32(), out.f32(), a.numel());
    case DeviceKind::CUDA:
      if (is_16_bit(a.dtype))
        return cuda::twin(&cuda::Kernels::add_16, "add", d)(a.u16(), b.u16(), out.u16(), a.numel(),
                                                            a.dtype, op_stream(d));
      return cuda::twin(&cuda::Kernels::add, "add", d)(a.f32(), b.f32(), out.f32(), a.numel(), op_stream(d));
  }
  no_backend("add", d);
}

void add_into(const Tensor& x, const Tensor& out) {
  check(x.numel() == out.numel() && x.dtype == out.dtype,
        "add_into: " + x.describe() + " into " + out.describe());
  OpTimer op_timer("add_into");
  const Device d = op_device("add_into", {&x, &out});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::add_into(x.f32(), out.f32(), x.numel());
    case DeviceKind::CUDA:
      if (is_16_bit(x.dtype))
        return cuda::twin(&cuda::Kernels::add_into_16, "add_into", d)(x.u16(), out.u16(), x.numel(),
                                                                      x.dtype, op_stream(d));
      return cuda::twin(&cuda::Kernels::add_into, "add_into", d)(x.f32(), out.f32(), x.numel(), op_stream(d));
  }
  no_backend("add_into", d);
}

void scale_in_place(const Tensor& x, float s) {
  OpTimer op_timer("scale_in_place");
  const Device d = op_device("scale_in_place", {&x});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::scale_in_place(x.f32(), s, x.numel());
    case DeviceKind::CUDA:
      if (is_16_bit(x.dtype))
        return cuda::twin(&cuda::Kernels::scale_in_place_16, "scale_in_place", d)(
            x.u16(), s, x.numel(), x.dtype, op_stream(d));
      return cuda::twin(&cuda::Kernels::scale_in_place, "scale_in_place", d)(x.f32(), s, x.numel(), op_stream(d));
  }
  no_backend("scale_in_place", d);
}

void multiply(const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel() && b.dtype == a.dtype &&
            out.dtype == a.dtype,
        "multiply: " + a.describe() + " * " + b.describe() + " -> " + out.describe());
  OpTimer op_timer("multiply");
  const Device d = op_device("multiply", {&a, &b, &out});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::multiply(a.f32(), b.f32(), out.f32(), a.numel());
    case DeviceKind::CUDA:
      if (is_16_bit(a.dtype))
        return cuda::twin(&cuda::Kernels::multiply_16, "multiply", d)(
            a.u16(), b.u16(), out.u16(), a.numel(), a.dtype, op_stream(d));
      return cuda::twin(&cuda::Kernels::multiply, "multiply", d)(a.f32(), b.f32(), out.f32(), a.numel(), op_stream(d));
  }
  no_backend("multiply", d);
}

}  // namespace precis
