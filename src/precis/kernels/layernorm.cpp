#include "precis/kernels/layernorm.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

void layernorm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps,
                       const Tensor& y, const Tensor& mean, const Tensor& rstd) {
  int64_t cols = weight.numel(), rows = x.numel() / cols;
  check(x.shape[-1] == cols && bias.numel() == cols && y.shape == x.shape && mean.numel() == rows &&
            rstd.numel() == rows,
        "layernorm: x " + x.describe() + ", weight " + weight.describe() + ", y " + y.describe());
  cpu::layernorm_forward(x.f32(), weight.f32(), bias.f32(), y.f32(), mean.f32(), rstd.f32(), rows,
                         cols, eps);
}

}  // namespace precis
