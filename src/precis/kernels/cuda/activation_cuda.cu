// The CUDA twin of the activations (kernels/activation.h): elementwise, grid-stride
// (activation_kernels.cuh), in fp32 and in bf16/fp16.
#include "precis/kernels/cuda/activation_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

template <class T>
void activation_forward(Activation kind, const T* x, T* y, int64_t n, Stream s) {
  // GELU's erf or tanh: about 20 operations an element.
  declare_cost(elementwise_cost(n, 1, 1, sizeof(T), 20));
  PRECIS_LAUNCH_OVER(activation_forward_kernel<T>, n, s, kind, x, y, n);
}

template <class T>
void activation_backward(Activation kind, const T* x, const T* dy, T* dx, int64_t n, Stream s) {
  declare_cost(elementwise_cost(n, 2, 1, sizeof(T), 25));
  PRECIS_LAUNCH_OVER(activation_backward_kernel<T>, n, s, kind, x, dy, dx, n);
}

}  // namespace

void add_activation_twins(Kernels& k) {
  k.activation_forward = PRECIS_BY_DTYPE(activation_forward);
  k.activation_backward = PRECIS_BY_DTYPE(activation_backward);
}

}  // namespace precis::cuda
