#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

namespace {
constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kSqrt2OverPi = 0.79788456080286535588f;

constexpr float kInvSqrt2Pi = 0.39894228040143267794f;  // 1/sqrt(2π), the normal pdf's factor

template <class F>
void map(const float* x, float* y, int64_t n, F f) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

// dx[i] = dy[i] * f'(x[i]).
template <class F>
void map_backward(const float* x, const float* dy, float* dx, int64_t n, F derivative) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) dx[i] = dy[i] * derivative(x[i]);
}

// d/dv of 0.5·v·(1 + tanh(k·(v + c·v³))): the cdf-like factor plus v times its slope.
inline float tanh_gelu_derivative(float v, float k, float c) {
  float t = std::tanh(k * (v + c * v * v * v));
  return 0.5f * (1.0f + t)                                         // d(0.5·v)/dv · (1 + t)
         + 0.5f * v * (1.0f - t * t) * k * (1.0f + 3.0f * c * v * v);  // 0.5·v · dt/dv
}

// d/dv of v·sigmoid(a·v) = s + a·v·s·(1 - s).
inline float sigmoid_gate_derivative(float v, float a) {
  float s = 1.0f / (1.0f + std::exp(-a * v));
  return s + a * v * s * (1.0f - s);
}
}  // namespace

void activation_forward(Activation kind, const float* x, float* y, int64_t n) {
  switch (kind) {
    case Activation::GeluExact:
      return map(x, y, n, [](float v) { return 0.5f * v * (1.0f + std::erf(v * kSqrtHalf)); });
    case Activation::GeluTanh:
      return map(x, y, n, [](float v) {
        return 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v)));
      });
    case Activation::GeluFast:
      return map(x, y, n, [](float v) {
        return 0.5f * v * (1.0f + std::tanh(0.7978845608f * v * (1.0f + 0.044715f * v * v)));
      });
    case Activation::QuickGelu:
      return map(x, y, n, [](float v) { return v / (1.0f + std::exp(-1.702f * v)); });
    case Activation::Relu: return map(x, y, n, [](float v) { return v > 0.0f ? v : 0.0f; });
    case Activation::Silu: return map(x, y, n, [](float v) { return v / (1.0f + std::exp(-v)); });
    case Activation::Tanh: return map(x, y, n, [](float v) { return std::tanh(v); });
    case Activation::Linear: return map(x, y, n, [](float v) { return v; });
  }
}

void activation_backward(Activation kind, const float* x, const float* dy, float* dx, int64_t n) {
  switch (kind) {
    case Activation::GeluExact:
      // d/dv [v·Φ(v)] = Φ(v) + v·φ(v)
      return map_backward(x, dy, dx, n, [](float v) {
        return 0.5f * (1.0f + std::erf(v * kSqrtHalf)) + v * kInvSqrt2Pi * std::exp(-0.5f * v * v);
      });
    case Activation::GeluTanh:
      return map_backward(x, dy, dx, n,
                          [](float v) { return tanh_gelu_derivative(v, kSqrt2OverPi, 0.044715f); });
    case Activation::GeluFast:
      return map_backward(x, dy, dx, n,
                          [](float v) { return tanh_gelu_derivative(v, 0.7978845608f, 0.044715f); });
    case Activation::QuickGelu:
      return map_backward(x, dy, dx, n, [](float v) { return sigmoid_gate_derivative(v, 1.702f); });
    case Activation::Relu:
      return map_backward(x, dy, dx, n, [](float v) { return v > 0.0f ? 1.0f : 0.0f; });
    case Activation::Silu:
      return map_backward(x, dy, dx, n, [](float v) { return sigmoid_gate_derivative(v, 1.0f); });
    case Activation::Tanh:
      return map_backward(x, dy, dx, n, [](float v) {
        float t = std::tanh(v);
        return 1.0f - t * t;
      });
    case Activation::Linear: return map_backward(x, dy, dx, n, [](float) { return 1.0f; });
  }
}

}  // namespace precis::cpu
