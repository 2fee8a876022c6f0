#include "precis/kernels/grad_norm.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

namespace precis {

double sum_of_squares(const Tensor& x) {
  return dispatch_op(
      "sum_of_squares", {&x}, [&] { return cpu::sum_of_squares(x.f32(), x.numel()); },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::sum_of_squares, x.f32(), x.numel());
      });
}

void sum_of_squares_into(const Tensor& x, const Tensor& total) {
  check(total.numel() == 1 && total.dtype == DType::F64,
        "sum_of_squares: total " + total.describe() + " (one F64)");
  dispatch_op(
      "sum_of_squares", {&x, &total},
      [&] { total.data<double>()[0] = cpu::sum_of_squares(x.f32(), x.numel()); },
      [&](const CudaOp& gpu) {
        gpu.run(&cuda::Kernels::sum_of_squares_into, x.f32(), x.numel(), total.data<double>());
      });
}

}  // namespace precis
