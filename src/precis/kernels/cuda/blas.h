// The CUDA backend's matrix products, with cuBLAS's semantics: column-major matrices,
// op(X) = X or Xᵀ, leading dimensions in elements. blas_cublaslt.cu runs them through
// cuBLASLt (fp32 compute); the kernel emulator of the tests maps them to a loop over exactly
// these semantics (tests/cuda_emulation/blas_emulated.cpp), which checks the callers' layouts,
// transposes and leading dimensions without a GPU.
//
// Row-major callers use the identity (A·B)ᵀ = Bᵀ·Aᵀ: a row-major (r, c) matrix is a
// column-major (c, r) one with leading dimension c.
#pragma once

#include <cstdint>

#include "precis/core/device.h"

namespace precis::cuda {

struct GemmOperand {
  const float* data;
  int64_t ld;      // leading dimension of the stored matrix
  bool transpose;  // op(X) = Xᵀ
};

// C (m, n) = alpha · op(A) (m, k) · op(B) (k, n) + beta · C, C column-major with leading
// dimension ldc. Throws Error on a leading dimension smaller than the stored rows.
void gemm(Stream s, int64_t m, int64_t n, int64_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, float* c, int64_t ldc);

}  // namespace precis::cuda
