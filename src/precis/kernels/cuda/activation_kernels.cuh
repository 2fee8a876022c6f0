// The CUDA twin's kernels of the activations (kernels/activation.h): one thread per element in a
// grid-stride loop, each element activation_math.h's formula for the kind, the expression the
// CPU loop runs, so the results are the CPU's bits (erf, tanh and exp up to libm's ulps on a GPU).
// T is the element type (element.cuh): fp32, or bf16/fp16 rounded once from the fp32 result.
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/activation.h"
#include "precis/kernels/activation_math.h"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/grid_stride.cuh"

namespace precis::cuda {

// act(v) for the kind, or with kSlope its derivative act'(v), side by side; the branch is the
// same for every thread of a launch.
template <bool kSlope>
PRECIS_HOST_DEVICE inline float activation_at(Activation kind, float v) {
  using namespace activation_math;
  switch (kind) {
    case Activation::GeluExact:
      return kSlope ? gelu_exact_derivative(v) : gelu_exact(v);
    case Activation::GeluTanh:
      return kSlope ? tanh_gelu_derivative(v, kSqrt2OverPi, kGeluCubic) : gelu_tanh(v);
    case Activation::GeluFast:
      return kSlope ? tanh_gelu_derivative(v, kGeluFastK, kGeluCubic) : gelu_fast(v);
    case Activation::QuickGelu:
      return kSlope ? sigmoid_gate_derivative(v, kQuickGeluA) : sigmoid_gate(v, kQuickGeluA);
    case Activation::Relu:
      return kSlope ? relu_derivative(v) : relu(v);
    case Activation::Silu:
      return kSlope ? sigmoid_gate_derivative(v, 1.0f) : sigmoid_gate(v, 1.0f);
    case Activation::Tanh:
      return kSlope ? tanh_derivative(v) : std::tanh(v);
    case Activation::Linear:
      return kSlope ? 1.0f : v;
  }
  return kSlope ? 1.0f : v;
}

// y = act(x); y may alias x.
template <class T>
PRECIS_KERNEL void activation_forward_kernel(Activation kind, const T* x, T* y, int64_t n) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    store(y[i], activation_at<false>(kind, load(x[i])));
}

// dx = dy · act'(x); dx may alias dy.
template <class T>
PRECIS_KERNEL void activation_backward_kernel(Activation kind, const T* x, const T* dy, T* dx,
                                              int64_t n) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    store(dx[i], load(dy[i]) * activation_at<true>(kind, load(x[i])));
}

}  // namespace precis::cuda
