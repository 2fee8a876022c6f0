#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

namespace {
constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kSqrt2OverPi = 0.79788456080286535588f;

template <class F>
void map(const float* x, float* y, int64_t n, F f) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
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

}  // namespace precis::cpu
