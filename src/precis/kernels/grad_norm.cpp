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

}  // namespace precis
