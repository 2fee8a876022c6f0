// Each activation of activation.h and its derivative at one element, in float, the formulas
// of transformers/activations.py (ACT2FN). Shared by the CPU loop (cpu/activation_cpu.cpp) and
// the CUDA kernel, so both twins compute the same expression in the same order.
#pragma once

#include <cmath>

#include "precis/core/host_device.h"
#include "precis/kernels/erf_math.h"
#include "precis/kernels/exp_math.h"

namespace precis::activation_math {

constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kSqrt2OverPi = 0.79788456080286535588f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;  // 1/sqrt(2π), the normal pdf's factor
constexpr float kGeluFastK = 0.7978845608f;             // FastGELUActivation's constant
constexpr float kGeluCubic = 0.044715f;
constexpr float kQuickGeluA = 1.702f;

// GELUActivation (nn.functional.gelu): v·Φ(v). erf and exp are erf_math's and exp_math's
// (within 1.2 ulp), whose loops vectorise, where libm's are a call per element.
PRECIS_HOST_DEVICE inline float gelu_exact(float v) {
  return 0.5f * v * (1.0f + erf_math::erf(v * kSqrtHalf));
}
// d/dv [v·Φ(v)] = Φ(v) + v·φ(v)
PRECIS_HOST_DEVICE inline float gelu_exact_derivative(float v) {
  return 0.5f * (1.0f + erf_math::erf(v * kSqrtHalf)) +
         v * kInvSqrt2Pi * exp_math::exp(-0.5f * v * v);
}

// NewGELUActivation / PytorchGELUTanh: 0.5·v·(1 + tanh(√(2/π)·(v + 0.044715·v³))).
PRECIS_HOST_DEVICE inline float gelu_tanh(float v) {
  return 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + kGeluCubic * v * v * v)));
}
// FastGELUActivation: the same curve, its factors grouped as HF writes them.
PRECIS_HOST_DEVICE inline float gelu_fast(float v) {
  return 0.5f * v * (1.0f + std::tanh(kGeluFastK * v * (1.0f + kGeluCubic * v * v)));
}
// d/dv of 0.5·v·(1 + tanh(k·(v + c·v³))): the cdf-like factor plus v times its slope.
PRECIS_HOST_DEVICE inline float tanh_gelu_derivative(float v, float k, float c) {
  float t = std::tanh(k * (v + c * v * v * v));
  return 0.5f * (1.0f + t)                                             // d(0.5·v)/dv · (1 + t)
         + 0.5f * v * (1.0f - t * t) * k * (1.0f + 3.0f * c * v * v);  // 0.5·v · dt/dv
}

// QuickGELUActivation (a = 1.702) and SiLU (a = 1): v·sigmoid(a·v).
PRECIS_HOST_DEVICE inline float sigmoid_gate(float v, float a) {
  return v / (1.0f + std::exp(-a * v));
}
// d/dv of v·sigmoid(a·v) = s + a·v·s·(1 - s).
PRECIS_HOST_DEVICE inline float sigmoid_gate_derivative(float v, float a) {
  float s = 1.0f / (1.0f + std::exp(-a * v));
  return s + a * v * s * (1.0f - s);
}

PRECIS_HOST_DEVICE inline float relu(float v) { return v > 0.0f ? v : 0.0f; }
// relu'(0) = 0, as torch.
PRECIS_HOST_DEVICE inline float relu_derivative(float v) { return v > 0.0f ? 1.0f : 0.0f; }

PRECIS_HOST_DEVICE inline float tanh_derivative(float v) {
  float t = std::tanh(v);
  return 1.0f - t * t;
}

}  // namespace precis::activation_math
