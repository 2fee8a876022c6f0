#include "precis/kernels/rms_norm.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/mixed_precision_check.h"
#include "precis/kernels/op_dispatch.h"
#include "precis/kernels/rounded_copy.h"

namespace precis {

void rms_norm_forward(const Tensor& x, const Tensor& weight, float eps, const Tensor& y,
                      const Tensor& rstd, const Tensor& rounded) {
  int64_t cols = weight.numel(), rows = cols ? x.numel() / cols : 0;
  check(x.shape[-1] == cols && y.shape == x.shape && rstd.numel() == rows,
        "rms_norm: x " + x.describe() + ", weight " + weight.describe() + ", y " + y.describe() +
            ", rstd " + rstd.describe());
  check_mixed_precision("rms_norm", {{"x", x}, {"y", y}}, {{"weight", weight}, {"rstd", rstd}});
  check_rounded_copy("rms_norm", y, rounded);
  return dispatch_op(
      "rms_norm", {&x, &weight, &y, &rstd, &rounded},
      [&] {
        cpu::rms_norm_forward(x.f32(), weight.f32(), y.f32(), rstd.f32(), rows, cols, eps);
        write_rounded_copy_on_cpu(y, rounded);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::rms_norm_forward, x.dtype, x.ptr, weight.f32(), y.ptr,
                       rstd.f32(), rows, cols, eps, rounded_copy_bits(rounded),
                       rounded_copy_is_bf16(rounded));
      });
}

void rms_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& rstd,
                       const Tensor& dx, const Tensor& dweight) {
  int64_t cols = weight.numel(), rows = cols ? x.numel() / cols : 0;
  check(x.shape[-1] == cols && dy.shape == x.shape && dx.shape == x.shape &&
            dweight.numel() == cols && rstd.numel() == rows,
        "rms_norm backward: dy " + dy.describe() + ", x " + x.describe() + ", weight " +
            weight.describe() + ", dx " + dx.describe());
  check_mixed_precision("rms_norm backward", {{"dy", dy}, {"x", x}, {"dx", dx}},
                        {{"weight", weight}, {"rstd", rstd}, {"dweight", dweight}});
  return dispatch_op(
      "rms_norm backward", {&dy, &x, &weight, &rstd, &dx, &dweight},
      [&] {
        return cpu::rms_norm_backward(dy.f32(), x.f32(), weight.f32(), rstd.f32(), dx.f32(),
                                      dweight.f32(), rows, cols);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::rms_norm_backward, x.dtype, dy.ptr, x.ptr, weight.f32(),
                       rstd.f32(), dx.ptr, dweight.f32(), rows, cols);
      });
}

}  // namespace precis
