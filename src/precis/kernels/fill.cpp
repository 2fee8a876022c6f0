#include "precis/kernels/fill.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

namespace precis {

void zero(const Tensor& x) {
  return dispatch_op(
      "zero", {&x}, [&] { return cpu::zero(x.ptr, x.nbytes()); },
      [&](const CudaOp& gpu) { return gpu.run(&DeviceRuntime::zero, x.ptr, x.nbytes()); });
}

void fill(const Tensor& x, float value) {
  return dispatch_op(
      "fill", {&x}, [&] { return cpu::fill(x.f32(), x.numel(), value); },
      [&](const CudaOp& gpu) { return gpu.run(&cuda::Kernels::fill, x.f32(), x.numel(), value); });
}

void fill_normal(const Tensor& x, double std, uint64_t seed, uint64_t stream, int64_t first) {
  check(first >= 0 && first <= x.numel(),
        "fill_normal: first element " + std::to_string(first) + " outside " + x.describe());
  return dispatch_op(
      "fill_normal", {&x},
      [&] { return cpu::fill_normal(x.f32(), first, x.numel(), std, seed, stream); },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::fill_normal, x.f32(), first, x.numel(), std, seed, stream);
      });
}

}  // namespace precis
