#include "precis/kernels/linear.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y) {
  int64_t in = weight.size(1), out = weight.size(0);
  check(x.shape[-1] == in && y.shape[-1] == out && x.numel() / in == y.numel() / out,
        "linear: x " + x.describe() + ", weight " + weight.describe() + ", y " + y.describe());
  check(bias.ptr == nullptr || bias.numel() == out, "linear: bias " + bias.describe());
  cpu::linear_forward(x.f32(), weight.f32(), bias.ptr ? bias.f32() : nullptr, y.f32(),
                      x.numel() / in, in, out);
}

}  // namespace precis
