#include "precis/kernels/layernorm.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/mixed_precision_check.h"
#include "precis/kernels/op_dispatch.h"
#include "precis/kernels/rounded_copy.h"

namespace precis {

void layernorm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps,
                       const Tensor& y, const Tensor& mean, const Tensor& rstd,
                       const Tensor& rounded) {
  int64_t cols = weight.numel(), rows = x.numel() / cols;
  check(x.shape[-1] == cols && bias.numel() == cols && y.shape == x.shape && mean.numel() == rows &&
            rstd.numel() == rows,
        "layernorm: x " + x.describe() + ", weight " + weight.describe() + ", y " + y.describe());
  check_mixed_precision("layernorm", {{"x", x}, {"y", y}},
                        {{"weight", weight}, {"bias", bias}, {"mean", mean}, {"rstd", rstd}});
  check_rounded_copy("layernorm", y, rounded);
  return dispatch_op(
      "layernorm", {&x, &weight, &bias, &y, &mean, &rstd, &rounded},
      [&] {
        cpu::layernorm_forward(x.f32(), weight.f32(), bias.f32(), y.f32(), mean.f32(), rstd.f32(),
                               rows, cols, eps);
        write_rounded_copy_on_cpu(y, rounded);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::layernorm_forward, x.dtype, x.ptr, weight.f32(), bias.f32(),
                       y.ptr, mean.f32(), rstd.f32(), rows, cols, eps, rounded_copy_bits(rounded),
                       rounded_copy_is_bf16(rounded));
      });
}

void layernorm_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& mean,
                        const Tensor& rstd, const Tensor& dx, const Tensor& dweight,
                        const Tensor& dbias, const Tensor& rounded) {
  int64_t cols = weight.numel(), rows = x.numel() / cols;
  check(x.shape[-1] == cols && dy.shape == x.shape && dx.shape == x.shape &&
            dweight.numel() == cols && dbias.numel() == cols && mean.numel() == rows &&
            rstd.numel() == rows,
        "layernorm backward: dy " + dy.describe() + ", x " + x.describe() + ", weight " +
            weight.describe() + ", dx " + dx.describe());
  check_mixed_precision(
      "layernorm backward", {{"dy", dy}, {"x", x}, {"dx", dx}},
      {{"weight", weight}, {"mean", mean}, {"rstd", rstd}, {"dweight", dweight}, {"dbias", dbias}});
  check_rounded_copy("layernorm backward", dx, rounded);
  return dispatch_op(
      "layernorm backward", {&dy, &x, &weight, &mean, &rstd, &dx, &dweight, &dbias, &rounded},
      [&] {
        cpu::layernorm_backward(dy.f32(), x.f32(), weight.f32(), mean.f32(), rstd.f32(), dx.f32(),
                                dweight.f32(), dbias.f32(), rows, cols);
        write_rounded_copy_on_cpu(dx, rounded);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::layernorm_backward, x.dtype, dy.ptr, x.ptr, weight.f32(),
                       mean.f32(), rstd.f32(), dx.ptr, dweight.f32(), dbias.f32(), rows, cols,
                       rounded_copy_bits(rounded), rounded_copy_is_bf16(rounded));
      });
}

}  // namespace precis
