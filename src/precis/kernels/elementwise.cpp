#include "precis/kernels/elementwise.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"

namespace precis {

void add(const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel(),
        "add: " + a.describe() + " + " + b.describe() + " -> " + out.describe());
  const Device d = op_device("add", {&a, &b, &out});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::add(a.f32(), b.f32(), out.f32(), a.numel());
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::add, "add", d)(a.f32(), b.f32(), out.f32(), a.numel(), op_stream(d));
  }
  no_backend("add", d);
}

void add_into(const Tensor& x, const Tensor& out) {
  check(x.numel() == out.numel(), "add_into: " + x.describe() + " into " + out.describe());
  const Device d = op_device("add_into", {&x, &out});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::add_into(x.f32(), out.f32(), x.numel());
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::add_into, "add_into", d)(x.f32(), out.f32(), x.numel(), op_stream(d));
  }
  no_backend("add_into", d);
}

void scale_in_place(const Tensor& x, float s) {
  const Device d = op_device("scale_in_place", {&x});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::scale_in_place(x.f32(), s, x.numel());
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::scale_in_place, "scale_in_place", d)(x.f32(), s, x.numel(), op_stream(d));
  }
  no_backend("scale_in_place", d);
}

void multiply(const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel(),
        "multiply: " + a.describe() + " * " + b.describe() + " -> " + out.describe());
  const Device d = op_device("multiply", {&a, &b, &out});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::multiply(a.f32(), b.f32(), out.f32(), a.numel());
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::multiply, "multiply", d)(a.f32(), b.f32(), out.f32(), a.numel(), op_stream(d));
  }
  no_backend("multiply", d);
}

}  // namespace precis
