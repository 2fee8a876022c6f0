#include "precis/kernels/rms_norm.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

void rms_norm_forward(const Tensor& x, const Tensor& weight, float eps, const Tensor& y,
                      const Tensor& rstd) {
  int64_t cols = weight.numel(), rows = cols ? x.numel() / cols : 0;
  check(x.shape[-1] == cols && y.shape == x.shape && rstd.numel() == rows,
        "rms_norm: x " + x.describe() + ", weight " + weight.describe() + ", y " + y.describe() +
            ", rstd " + rstd.describe());
  check(y.dtype == x.dtype && weight.dtype == DType::F32 && rstd.dtype == DType::F32,
        "rms_norm: x and y of one dtype, the weight and rstd F32: x " + x.describe() + ", y " +
            y.describe() + ", weight " + weight.describe() + ", rstd " + rstd.describe());
  OpTimer op_timer("rms_norm");
  const Device d = op_device("rms_norm", {&x, &weight, &y, &rstd});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::rms_norm_forward(x.f32(), weight.f32(), y.f32(), rstd.f32(), rows, cols, eps);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::rms_norm_forward, "rms_norm", d)(
          x.dtype, x.ptr, weight.f32(), y.ptr, rstd.f32(), rows, cols, eps, op_stream(d));
  }
  no_backend("rms_norm", d);
}

void rms_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& rstd,
                       const Tensor& dx, const Tensor& dweight) {
  int64_t cols = weight.numel(), rows = cols ? x.numel() / cols : 0;
  check(x.shape[-1] == cols && dy.shape == x.shape && dx.shape == x.shape &&
            dweight.numel() == cols && rstd.numel() == rows,
        "rms_norm backward: dy " + dy.describe() + ", x " + x.describe() + ", weight " +
            weight.describe() + ", dx " + dx.describe());
  check(dy.dtype == x.dtype && dx.dtype == x.dtype && weight.dtype == DType::F32 &&
            rstd.dtype == DType::F32 && dweight.dtype == DType::F32,
        "rms_norm backward: dy, x and dx of one dtype, the others F32: dy " + dy.describe() +
            ", x " + x.describe() + ", dx " + dx.describe() + ", weight " + weight.describe() +
            ", rstd " + rstd.describe() + ", dweight " + dweight.describe());
  OpTimer op_timer("rms_norm backward");
  const Device d = op_device("rms_norm backward", {&dy, &x, &weight, &rstd, &dx, &dweight});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::rms_norm_backward(dy.f32(), x.f32(), weight.f32(), rstd.f32(), dx.f32(),
                                    dweight.f32(), rows, cols);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::rms_norm_backward, "rms_norm backward", d)(
          x.dtype, dy.ptr, x.ptr, weight.f32(), rstd.f32(), dx.ptr, dweight.f32(), rows, cols,
          op_stream(d));
  }
  no_backend("rms_norm backward", d);
}

}  // namespace precis
