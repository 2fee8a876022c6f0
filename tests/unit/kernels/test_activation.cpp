// activation (kernels/activation.h): every kind's forward against its formula in double and
// its backward against central differences of that formula, on every backend; dx may alias dy.
#include <cmath>
#include <random>
#include <vector>

#include "precis/kernels/activation.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

double activation_reference(Activation a, double v) {
  const double pi = 3.14159265358979323846;
  switch (a) {
    case Activation::GeluExact: return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    case Activation::GeluTanh:
      return 0.5 * v * (1 + std::tanh(std::sqrt(2 / pi) * (v + 0.044715 * v * v * v)));
    case Activation::GeluFast:
      return 0.5 * v * (1 + std::tanh(0.7978845608 * v * (1 + 0.044715 * v * v)));
    case Activation::QuickGelu: return v / (1 + std::exp(-1.702 * v));
    case Activation::Relu: return v > 0 ? v : 0;
    case Activation::Silu: return v / (1 + std::exp(-v));
    case Activation::Tanh: return std::tanh(v);
    case Activation::Linear: return v;
  }
  return 0;
}

constexpr Activation kEveryActivation[] = {
    Activation::GeluExact, Activation::GeluTanh, Activation::GeluFast, Activation::QuickGelu,
    Activation::Relu,      Activation::Silu,     Activation::Tanh,     Activation::Linear};

class ActivationKernel : public KernelTest {};

}  // namespace

// A flat 64, the odd shapes and one larger than the emulated grid's threads (its grid-stride
// loop wraps); inputs in [-4, 4], away from relu's kink.
TEST_P(ActivationKernel, EveryKindMatchesFiniteDifferences) {
  std::mt19937 rng(6);
  std::vector<Shape> shapes{Shape{64}};
  for (OddShape s : odd_shapes()) shapes.push_back(Shape{s.rows, s.cols});
  shapes.push_back(Shape{3, 401});
  for (const Shape& shape : shapes) {
    const int64_t n = shape.numel();
    std::vector<float> x = random_floats(n, rng, -4.0f, 4.0f);
    for (float& v : x)
      if (std::abs(v) < 1e-3f) v = 0.5f;  // relu's kink
    std::vector<float> G = random_floats(n, rng);
    Tensor xt = on_device(x, shape), Gt = on_device(G, shape);
    for (Activation a : kEveryActivation) {
      const std::string what = activation_name(a) + " on " + std::to_string(n) + " elements";
      Tensor y = filled(shape), dx = filled(shape, 9.0f);
      activation_forward(a, xt, y);
      RefVec expected_y(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) expected_y[i] = activation_reference(a, x[i]);
      expect_near_reference(to_host(y), expected_y, what);
      activation_backward(a, xt, Gt, dx);
      RefVec expected(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const double h = 1e-6, v = x[i];
        expected[i] =
            G[i] * (activation_reference(a, v + h) - activation_reference(a, v - h)) / (2 * h);
      }
      std::vector<float> dx_host = to_host(dx);
      expect_near_reference(dx_host, expected, what);
      // In place on dy.
      Tensor inplace = on_device(G, shape);
      activation_backward(a, xt, inplace, inplace);
      EXPECT_EQ(to_host(inplace), dx_host) << what;
    }
  }
}

TEST_P(ActivationKernel, ReluGradientAtZeroIsZero) {
  Tensor zero = filled({1}), one = filled({1}, 1.0f), d = filled({1}, 5.0f);
  activation_backward(Activation::Relu, zero, one, d);
  EXPECT_EQ(to_host(d)[0], 0.0f) << "relu'(0) = 0 as in torch";
}

INSTANTIATE_KERNEL_TEST(ActivationKernel);

// The 16-bit twins (bf16, fp16) against the CPU's fp32 kernel on the same rounded values:
// forward, backward, and the backward in place on dy.
class ActivationKernel16 : public HalfKernelTest {};

TEST_P(ActivationKernel16, EveryKindIsTheFp32ResultRoundedOnce) {
  std::mt19937 rng(16);
  for (const Shape& shape : {Shape{5, 129}, Shape{3, 401}}) {
    const int64_t n = shape.numel();
    std::vector<float> x = random_floats(n, rng, -4.0f, 4.0f), G = random_floats(n, rng);
    Tensor xt = on_device_16(x, shape), Gt = on_device_16(G, shape);
    for (Activation a : kEveryActivation) {
      const std::string what = activation_name(a) + " on " + std::to_string(n) + " elements";
      std::vector<float> y(static_cast<size_t>(n)), dx(static_cast<size_t>(n));
      activation_forward(a, on_cpu(x, shape), on_cpu(y, shape));
      activation_backward(a, on_cpu(x, shape), on_cpu(G, shape), on_cpu(dx, shape));
      Tensor yt = filled_16(shape), dxt = filled_16(shape, 9.0f);
      activation_forward(a, xt, yt);
      expect_rounded_from(to_host(yt), y, dtype(), what);
      activation_backward(a, xt, Gt, dxt);
      expect_rounded_from(to_host(dxt), dx, dtype(), what + " backward");
      Tensor inplace = on_device_16(G, shape);
      activation_backward(a, xt, inplace, inplace);
      EXPECT_EQ(to_host(inplace), to_host(dxt)) << what << " backward in place";
    }
  }
}

INSTANTIATE_HALF_KERNEL_TEST(ActivationKernel16);
