#include <cmath>

#include "precis/kernels/activation_math.h"
#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

namespace {

// simdlen(16): GCC 12 tunes AVX-512 CPUs for 256-bit vectors, and GELU's erf (two polynomials,
// an exponential and a division per element) ran 8 wide; asked for 16 lanes it runs in 512-bit
// registers where the build has them (each lane the same operations: the same bits).
template <class F>
void map(const float* x, float* y, int64_t n, F f) {
#pragma omp parallel for simd simdlen(16) schedule(static) if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

// dx[i] = dy[i] * f'(x[i]).
template <class F>
void map_backward(const float* x, const float* dy, float* dx, int64_t n, F derivative) {
#pragma omp parallel for simd simdlen(16) schedule(static) if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) dx[i] = dy[i] * derivative(x[i]);
}

}  // namespace

// The formulas are activation_math.h's, shared with the CUDA twin.
void activation_forward(Activation kind, const float* x, float* y, int64_t n) {
  using namespace activation_math;
  switch (kind) {
    case Activation::GeluExact:
      return map(x, y, n, [](float v) { return gelu_exact(v); });
    case Activation::GeluTanh:
      return map(x, y, n, [](float v) { return gelu_tanh(v); });
    case Activation::GeluFast:
      return map(x, y, n, [](float v) { return gelu_fast(v); });
    case Activation::QuickGelu:
      return map(x, y, n, [](float v) { return sigmoid_gate(v, kQuickGeluA); });
    case Activation::Relu:
      return map(x, y, n, [](float v) { return relu(v); });
    case Activation::Silu:
      return map(x, y, n, [](float v) { return sigmoid_gate(v, 1.0f); });
    case Activation::Tanh:
      return map(x, y, n, [](float v) { return std::tanh(v); });
    case Activation::Linear:
      return map(x, y, n, [](float v) { return v; });
  }
}

void activation_backward(Activation kind, const float* x, const float* dy, float* dx, int64_t n) {
  using namespace activation_math;
  switch (kind) {
    case Activation::GeluExact:
      return map_backward(x, dy, dx, n, [](float v) { return gelu_exact_derivative(v); });
    case Activation::GeluTanh:
      return map_backward(
          x, dy, dx, n, [](float v) { return tanh_gelu_derivative(v, kSqrt2OverPi, kGeluCubic); });
    case Activation::GeluFast:
      return map_backward(x, dy, dx, n,
                          [](float v) { return tanh_gelu_derivative(v, kGeluFastK, kGeluCubic); });
    case Activation::QuickGelu:
      return map_backward(x, dy, dx, n,
                          [](float v) { return sigmoid_gate_derivative(v, kQuickGeluA); });
    case Activation::Relu:
      return map_backward(x, dy, dx, n, [](float v) { return relu_derivative(v); });
    case Activation::Silu:
      return map_backward(x, dy, dx, n, [](float v) { return sigmoid_gate_derivative(v, 1.0f); });
    case Activation::Tanh:
      return map_backward(x, dy, dx, n, [](float v) { return tanh_derivative(v); });
    case Activation::Linear:
      return map_backward(x, dy, dx, n, [](float) { return 1.0f; });
  }
}

}  // namespace precis::cpu
