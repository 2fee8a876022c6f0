// The CUDA twin of the activations (kernels/activation.h): elementwise, grid-stride
// (activation_kernels.cuh), in fp32 and in bf16/fp16.
#include "precis/kernels/cuda/activation_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

template <class T>
void activation_forward(Activation kind, const T* x, T* y, int64_t n, Stream s) {
  PRECIS_LAUNCH(activation_forward_kernel<T>, dim3{grid_stride_blocks(n)}, dim3{kThreads}, s, kind,
                x, y, n);
}

template <class T>
void activation_backward(Activation kind, const T* x, const T* dy, T* dx, int64_t n, Stream s) {
  PRECIS_LAUNCH(activation_backward_kernel<T>, dim3{grid_stride_blocks(n)}, dim3{kThreads}, s,
                kind, x, dy, dx, n);
}

void activation_forward_16(Activation kind, const uint16_t* x, uint16_t* y, int64_t n, DType t,
                           Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    activation_forward(kind, as<T>(x), as<T>(y), n, s);
  });
}

void activation_backward_16(Activation kind, const uint16_t* x, const uint16_t* dy, uint16_t* dx,
                            int64_t n, DType t, Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    activation_backward(kind, as<T>(x), as<T>(dy), as<T>(dx), n, s);
  });
}

}  // namespace

void add_activation_twins(Kernels& k) {
  k.activation_forward = activation_forward<float>;
  k.activation_backward = activation_backward<float>;
  k.activation_forward_16 = activation_forward_16;
  k.activation_backward_16 = activation_backward_16;
}

}  // namespace precis::cuda
