#include "precis/kernels/elementwise.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

void add(const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel(),
        "add: " + a.describe() + " + " + b.describe() + " -> " + out.describe());
  cpu::add(a.f32(), b.f32(), out.f32(), a.numel());
}

void add_into(const Tensor& x, const Tensor& out) {
  check(x.numel() == out.numel(), "add_into: " + x.describe() + " into " + out.describe());
  cpu::add_into(x.f32(), out.f32(), x.numel());
}

void scale_in_place(const Tensor& x, float s) { cpu::scale_in_place(x.f32(), s, x.numel()); }

void multiply(const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.numel() == b.numel() && a.numel() == out.numel(),
        "multiply: " + a.describe() + " * " + b.describe() + " -> " + out.describe());
  cpu::multiply(a.f32(), b.f32(), out.f32(), a.numel());
}

}  // namespace precis
