#include "precis/kernels/rms_norm.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

void rms_norm_forward(const Tensor& x, const Tensor& weight, float eps, const Tensor& y,
                      const Tensor& rstd) {
  int64_t cols = weight.numel(), rows = cols ? x.numel() / cols : 0;
  check(x.shape[-1] == cols && y.shape == x.shape && rstd.numel() == rows,
        "rms_norm: x " + x.describe() + ", weight " + weight.describe() + ", y " + y.describe() +
            ", rstd " + rstd.describe());
  cpu::rms_norm_forward(x.f32(), weight.f32(), y.f32(), rstd.f32(), rows, cols, eps);
}

void rms_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& rstd,
                       const Tensor& dx, const Tensor& dweight) {
  int64_t cols = weight.numel(), rows = cols ? x.numel() / cols : 0;
  check(x.shape[-1] == cols && dy.shape == x.shape && dx.shape == x.shape &&
            dweight.numel() == cols && rstd.numel() == rows,
        "rms_norm backward: dy " + dy.describe() + ", x " + x.describe() + ", weight " +
            weight.describe() + ", dx " + dx.describe());
  cpu::rms_norm_backward(dy.f32(), x.f32(), weight.f32(), rstd.f32(), dx.f32(), dweight.f32(), rows,
                         cols);
}

}  // namespace precis
