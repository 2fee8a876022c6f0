#include "precis/kernels/elementwise.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

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
  dispatch_op(
      op, {&a, &b, &out}, [&] { cpu_kernel(a.f32(), b.f32(), out.f32(), a.numel()); },
      [&](const CudaOp& gpu) { gpu.run(cuda_kernel, a.dtype, a.ptr, b.ptr, out.ptr, a.numel()); });
}

}  // namespace

void add(const Tensor& a, const Tensor& b, const Tensor& out) {
  binary_elementwise("add", "+", cpu::add, &cuda::Kernels::add, a, b, out);
}

void add_to_fp32(const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel() && a.dtype == DType::F32 &&
            out.dtype == DType::F32 && (b.dtype == DType::F32 || is_16_bit(b.dtype)),
        "add_to_fp32: " + a.describe() + " + " + b.describe() + " -> " + out.describe() +
            " (expected F32 + F32, BF16 or F16 -> F32, one element count)");
  if (b.dtype == DType::F32) return add(a, b, out);
  check(!b.device.is_cpu(),
        "add_to_fp32: " + b.describe() +
            ": 16-bit activations are the CUDA backend's (the CPU computes fp32)");
  dispatch_op(
      "add_to_fp32", {&a, &b, &out}, [] {},
      [&](const CudaOp& gpu) {
        gpu.run(&cuda::Kernels::add_to_fp32, b.dtype, a.f32(), b.ptr, out.f32(), a.numel());
      });
}

void add_into(const Tensor& x, const Tensor& out) {
  check(x.numel() == out.numel() && x.dtype == out.dtype,
        "add_into: " + x.describe() + " into " + out.describe());
  return dispatch_op(
      "add_into", {&x, &out}, [&] { return cpu::add_into(x.f32(), out.f32(), x.numel()); },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::add_into, x.dtype, x.ptr, out.ptr, x.numel());
      });
}

void scale_in_place(const Tensor& x, float s) {
  return dispatch_op(
      "scale_in_place", {&x}, [&] { return cpu::scale_in_place(x.f32(), s, x.numel()); },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::scale_in_place, x.dtype, x.ptr, s, x.numel());
      });
}

void multiply(const Tensor& a, const Tensor& b, const Tensor& out) {
  binary_elementwise("multiply", "*", cpu::multiply, &cuda::Kernels::multiply, a, b, out);
}

}  // namespace precis
