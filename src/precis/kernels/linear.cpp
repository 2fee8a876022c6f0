#include "precis/kernels/linear.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/mixed_precision_check.h"
#include "precis/kernels/op_dispatch.h"

namespace precis {

void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y) {
  int64_t in = weight.size(1), out = weight.size(0);
  check(x.shape[-1] == in && y.shape[-1] == out && x.numel() / in == y.numel() / out,
        "linear: x " + x.describe() + ", weight " + weight.describe() + ", y " + y.describe());
  check(bias.ptr == nullptr || bias.numel() == out, "linear: bias " + bias.describe());
  // Mixed precision: x, the weight's compute copy and y of one type; the bias an fp32
  // parameter, or its compute copy (autocast casts F.linear's bias too).
  const bool bias_16 = bias.ptr != nullptr && is_16_bit(bias.dtype);
  if (bias_16)
    check_mixed_precision("linear", {{"x", x}, {"weight", weight}, {"y", y}, {"bias", bias}}, {});
  else
    check_mixed_precision("linear", {{"x", x}, {"weight", weight}, {"y", y}}, {{"bias", bias}});
  return dispatch_op(
      {"linear", 2.0 * double(x.numel() / in) * double(in) * double(out)}, {&x, &weight, &bias, &y},
      [&] {
        return cpu::linear_forward(x.f32(), weight.f32(), bias.ptr ? bias.f32() : nullptr, y.f32(),
                                   x.numel() / in, in, out);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::linear_forward, x.dtype, x.ptr, weight.ptr, bias.ptr,
                       bias.dtype, y.ptr, x.numel() / in, in, out);
      });
}

void linear_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& dx,
                     const Tensor& dweight, const Tensor& dbias) {
  int64_t in = weight.size(1), out = weight.size(0), rows = x.numel() / in;
  check(x.shape[-1] == in && dy.shape[-1] == out && dy.numel() / out == rows,
        "linear backward: dy " + dy.describe() + ", x " + x.describe() + ", weight " +
            weight.describe());
  check(dx.ptr == nullptr || dx.shape == x.shape,
        "linear backward: dx " + dx.describe() + " for x " + x.describe());
  check(dweight.ptr == nullptr || dweight.shape == weight.shape,
        "linear backward: dweight " + dweight.describe() + " for weight " + weight.describe());
  check(dbias.ptr == nullptr || dbias.numel() == out, "linear backward: dbias " + dbias.describe());
  // Mixed precision: the activations and the weight's compute copy of one type, the parameter
  // gradients fp32 (master gradients).
  check_mixed_precision("linear backward", {{"dy", dy}, {"x", x}, {"weight", weight}, {"dx", dx}},
                        {{"dweight", dweight}, {"dbias", dbias}});
  if (rows == 0) return;
  // dx = dy W and dW = dy^T x: one GEMM of 2 rows in out FLOP each that is asked for.
  return dispatch_op(
      {"linear backward", 2.0 * double(rows) * double(in) * double(out) *
                              double((dx.ptr ? 1 : 0) + (dweight.ptr ? 1 : 0))},
      {&dy, &x, &weight, &dx, &dweight, &dbias},
      [&] {
        return cpu::linear_backward(dy.f32(), x.f32(), weight.f32(), dx.ptr ? dx.f32() : nullptr,
                                    dweight.ptr ? dweight.f32() : nullptr,
                                    dbias.ptr ? dbias.f32() : nullptr, rows, in, out);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::linear_backward, dy.dtype, dy.ptr, x.ptr, weight.ptr, dx.ptr,
                       dweight.ptr ? dweight.f32() : nullptr, dbias.ptr ? dbias.f32() : nullptr,
                       rows, in, out);
      });
}

void linear_input_grad_to_fp32(const Tensor& dy, const Tensor& weight, const Tensor& dx,
                               bool accumulate) {
  const int64_t in = weight.size(1), out = weight.size(0), rows = dx.numel() / in;
  check(dx.shape[-1] == in && dy.shape[-1] == out && dy.numel() / out == rows &&
            dx.dtype == DType::F32,
        "linear input gradient: dy " + dy.describe() + ", weight " + weight.describe() + ", dx " +
            dx.describe() + " (F32)");
  check_mixed_precision("linear input gradient", {{"dy", dy}, {"weight", weight}}, {{"dx", dx}});
  if (rows == 0) return;
  return dispatch_op(
      {"linear input gradient", 2.0 * double(rows) * double(in) * double(out)}, {&dy, &weight, &dx},
      [&] {
        return cpu::linear_input_grad_to_fp32(dy.f32(), weight.f32(), dx.f32(), accumulate, rows,
                                              in, out);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::linear_input_grad_to_fp32, dy.dtype, dy.ptr, weight.ptr,
                       dx.f32(), accumulate, rows, in, out);
      });
}

}  // namespace precis
