#include "precis/kernels/elementwise.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

void add(const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel(),
        "add: " + a.describe() + " + " + b.describe() + " -> " + out.describe());
  cpu::add(a.f32(), b.f32(), out.f32(), a.numel());
}

}  // namespace precis
