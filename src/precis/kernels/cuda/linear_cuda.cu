// The CUDA twin of linear (kernels/linear.h): the products through cuda/blas.h, in the
// column-major view of our row-major tensors (y (n, out) row-major is yᵀ (out, n)
// column-major with leading dimension out), and the bias kernels of linear_kernels.cuh.
#include "precis/kernels/cuda/blas.h"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/linear_kernels.cuh"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void linear_forward(const float* x, const float* w, const float* b, float* y, int64_t n,
                    int64_t in, int64_t out, Stream s) {
  float beta = 0.0f;
  if (b) {  // the GEMM accumulates onto the bias rows, as the CPU's does
    PRECIS_LAUNCH(bias_rows_kernel, dim3{grid_stride_blocks(n * out)}, dim3{kThreads}, s, b, y, n, out);
    beta = 1.0f;
  }
  // yᵀ (out, n) = w (out, in: stored as (in, out), transposed) · xᵀ (in, n)
  gemm(s, out, n, in, 1.0f, {w, DType::F32, in, true}, {x, DType::F32, in, false}, beta, y,
       DType::F32, out);
}

void linear_backward(const float* dy, const float* x, const float* w, float* dx, float* dw,
                     float* db, int64_t n, int64_t in, int64_t out, Stream s) {
  // dxᵀ (in, n) = wᵀ (in, out: w as stored) · dyᵀ (out, n)
  if (dx)
    gemm(s, in, n, out, 1.0f, {w, DType::F32, in, false}, {dy, DType::F32, out, false}, 0.0f, dx,
         DType::F32, in);
  // dwᵀ (in, out) += xᵀ (in, n) · dy (n, out: dyᵀ as stored, transposed)
  if (dw)
    gemm(s, in, out, n, 1.0f, {x, DType::F32, in, false}, {dy, DType::F32, out, true}, 1.0f, dw,
         DType::F32, in);
  if (db) PRECIS_LAUNCH(bias_grad_kernel, dim3{grid_stride_blocks(out)}, dim3{kThreads}, s, dy, db, n, out);
}

}  // namespace

void add_linear_twins(Kernels& k) {
  k.linear_forward = linear_forward;
  k.linear_backward = linear_backward;
}

}  // namespace precis::cuda
