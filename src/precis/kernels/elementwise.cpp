#include "precis/kernels/elementwise.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

namespace {

// out = a (op) b elementwise, for add and multiply: `symbol` spells the op in the error.
void binary_elementwise(const char* op, const char* symbol,
                        void (*cpu_kernel)(const float*, const float*, float*, int64_t),
                        decltype(cuda::Kernels::add) cuda::Kernels::*cuda_kernel, const Tensor& a,
                        const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel() && b.dtype == a.dtype &&
            out.dtype == a.dtype,
        std::string(op) + ": " + a.describe() + " " + symbol + " " + b.describe() + " -> " +
            out.describe());
  OpTimer op_timer(op);
  const Device d = op_device(op, {&a, &b, &out});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu_kernel(a.f32(), b.f32(), out.f32(), a.numel());
    case DeviceKind::CUDA:
      return cuda::twin(cuda_kernel, op, d)(a.dtype, a.ptr, b.ptr, out.ptr, a.numel(),
                                            op_stream(d));
  }
  no_backend(op, d);
}

}  // namespace

void add(const Tensor& a, const Tensor& b, const Tensor& out) {
  binary_elementwise("add", "+", cpu::add, &cuda::Kernels::add, a, b, out);
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
      return cuda::twin(&cuda::Kernels::add_into, "add_into", d)(x.dtype, x.ptr, out.ptr, x.numel(),
                                                                 op_stream(d));
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
      return cuda::twin(&cuda::Kernels::scale_in_place, "scale_in_place", d)(
          x.dtype, x.ptr, s, x.numel(), op_stream(d));
  }
  no_backend("scale_in_place", d);
}

void multiply(const Tensor& a, const Tensor& b, const Tensor& out) {
  binary_elementwise("multiply", "*", cpu::multiply, &cuda::Kernels::multiply, a, b, out);
}

}  // namespace precis
