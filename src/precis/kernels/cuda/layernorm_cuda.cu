// The CUDA twin of LayerNorm (kernels/layernorm.h): a block per row, the parameter gradients a
// thread per column (layernorm_kernels.cuh), with x, y, dy and dx in fp32 or in bf16/fp16.
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/layernorm_kernels.cuh"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

template <class T>
void layernorm_forward(const T* x, const float* weight, const float* bias, T* y, float* mean,
                       float* rstd, int64_t rows, int64_t cols, float eps, Stream s) {
  if (rows == 0) return;
  PRECIS_LAUNCH(layernorm_forward_kernel<T>, dim3{unsigned(rows)}, dim3{kRowThreads}, s, x, weight,
                bias, y, mean, rstd, cols, eps);
}

template <class T>
void layernorm_backward(const T* dy, const T* x, const float* weight, const float* mean,
                        const float* rstd, T* dx, float* dweight, float* dbias, int64_t rows,
                        int64_t cols, Stream s) {
  if (rows == 0) return;
  // In stream order: the parameter gradients read dy before dx (which may be dy) is written.
  PRECIS_LAUNCH(layernorm_parameter_gradients_kernel<T>, dim3{grid_stride_blocks(cols)},
                dim3{kThreads}, s, dy, x, mean, rstd, dweight, dbias, rows, cols);
  PRECIS_LAUNCH(layernorm_input_gradient_kernel<T>, dim3{unsigned(rows)}, dim3{kRowThreads}, s, dy,
                x, weight, mean, rstd, dx, cols);
}

void layernorm_forward_16(const uint16_t* x, const float* weight, const float* bias, uint16_t* y,
                          float* mean, float* rstd, int64_t rows, int64_t cols, float eps, DType t,
                          Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    layernorm_forward(as<T>(x), weight, bias, as<T>(y), mean, rstd, rows, cols, eps, s);
  });
}

void layernorm_backward_16(const uint16_t* dy, const uint16_t* x, const float* weight,
                           const float* mean, const float* rstd, uint16_t* dx, float* dweight,
                           float* dbias, int64_t rows, int64_t cols, DType t, Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    layernorm_backward(as<T>(dy), as<T>(x), weight, mean, rstd, as<T>(dx), dweight, dbias, rows,
                       cols, s);
  });
}

}  // namespace

void add_layernorm_twins(Kernels& k) {
  k.layernorm_forward = layernorm_forward<float>;
  k.layernorm_backward = layernorm_backward<float>;
  k.layernorm_forward_16 = layernorm_forward_16;
  k.layernorm_backward_16 = layernorm_backward_16;
}

}  // namespace precis::cuda
