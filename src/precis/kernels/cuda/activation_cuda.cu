// The CUDA twin of the activations (kernels/activation.h): elementwise, grid-stride
// (activation_kernels.cuh).
#include "precis/kernels/cuda/activation_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void activation_forward(Activation kind, const float* x, float* y, int64_t n, Stream s) {
  PRECIS_LAUNCH(activation_forward_kernel, dim3{grid_stride_blocks(n)}, dim3{kThreads}, s, kind, x,
                y, n);
}

void activation_backward(Activation kind, const float* x, const float* dy, float* dx, int64_t n,
                         Stream s) {
  PRECIS_LAUNCH(activation_backward_kernel, dim3{grid_stride_blocks(n)}, dim3{kThreads}, s, kind, x,
                dy, dx, n);
}

}  // namespace

void add_activation_twins(Kernels& k) {
  k.activation_forward = activation_forward;
  k.activation_backward = activation_backward;
}

}  // namespace precis::cuda
