#include "precis/kernels/rms_norm.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"

namespace precis {

void rms_norm_forward(const Tensor& x, const Tensor& weight, float eps, const Tensor& y,
                      const Tensor& rstd) {
  int64_t cols = weight.numel(), rows = cols ? x.numel() / cols : 0;
  check(x.shape[-1] == cols && y.shape == x.shape && rstd.numel() == rows,
        "rms_norm: x " + x.describe() + ", weight " + weight.describe() + ", y " + y.describe() +
            ", rstd " + rstd.describe());
  const Device d = op_device("rms_norm", {&x, &weight, &y, &rstd});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::rms_norm_forward(x.f32(), weight.f32(), y.f32(), rstd.f32(), rows, cols, eps);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::rms_norm_forward, "rms_norm", d)(
          x.f32(), weight.f32(), y.f32(), rstd.f32(), rows, cols, eps, op_stream(d));
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
  const Device d = op_device("rms_norm backward", {&dy, &x, &weight, &rstd, &dx, &dweight});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::rms_norm_backward(dy.f32(), x.f32(), weight.f32(), rstd.f32(), dx.f32(),
                                    dweight.f32(), rows, cols);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::rms_norm_backward, "rms_norm backward", d)(
          dy.f32(), x.f32(), weight.f32(), rstd.f32(), dx.f32(), dweight.f32(), rows, cols,
          op_stream(d));
  }
  no_backend("rms_norm backward", d);
}

}  // namespace precis
