#include "precis/kernels/activation.h"

#include "precis/core/enum_names.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

namespace precis {

namespace {

// ACT2FN's names for the activations precis has; gelu_pytorch_tanh and swish are aliases.
constexpr EnumName<Activation> kActivationNames[] = {
    {Activation::GeluExact, "gelu"},
    {Activation::GeluTanh, "gelu_new"},
    {Activation::GeluTanh, "gelu_pytorch_tanh"},
    {Activation::GeluFast, "gelu_fast"},
    {Activation::QuickGelu, "quick_gelu"},
    {Activation::Relu, "relu"},
    {Activation::Silu, "silu"},
    {Activation::Silu, "swish"},
    {Activation::Tanh, "tanh"},
    {Activation::Linear, "linear"},
};

}  // namespace

Activation activation_from_name(const std::string& name) {
  if (auto a = enum_from_name(kActivationNames, name)) return *a;
  throw Error("unknown activation_function \"" + name +
              "\" (expected gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, quick_gelu, relu, silu, "
              "swish, tanh or linear)");
}

std::string activation_name(Activation a) {
  return std::string(enum_name(kActivationNames, a, "?"));
}

void activation_forward(Activation kind, const Tensor& x, const Tensor& y) {
  check(x.shape == y.shape && x.dtype == y.dtype,
        "activation: input " + x.describe() + " vs output " + y.describe());
  return dispatch_op(
      "activation", {&x, &y},
      [&] { return cpu::activation_forward(kind, x.f32(), y.f32(), x.numel()); },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::activation_forward, x.dtype, kind, x.ptr, y.ptr, x.numel());
      });
}

void activation_backward(Activation kind, const Tensor& x, const Tensor& dy, const Tensor& dx) {
  check(x.shape == dy.shape && dx.shape == x.shape && dy.dtype == x.dtype && dx.dtype == x.dtype,
        "activation backward: input " + x.describe() + ", dy " + dy.describe() + ", dx " +
            dx.describe());
  return dispatch_op(
      "activation backward", {&x, &dy, &dx},
      [&] { return cpu::activation_backward(kind, x.f32(), dy.f32(), dx.f32(), x.numel()); },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::activation_backward, x.dtype, kind, x.ptr, dy.ptr, dx.ptr,
                       x.numel());
      });
}

}  // namespace precis
