// The CUDA backend's matrix products, with cuBLAS's semantics: column-major matrices,
// op(X) = X or Xᵀ, leading dimensions in elements. blas_cublaslt.cu runs them through
// cuBLASLt (fp32 compute); the kernel emulator of the tests maps them to a loop over exactly
// these semantics (tests/cuda_emulation/blas_emulated.cpp), which checks the callers' layouts,
// transposes and leading dimensions without a GPU.
//
// Mixed precision: A and B are fp32, or both bf16 or both fp16 (their bits); C is their type
// or fp32. The products accumulate in fp32 and each element of C is rounded to C's type once,
// so a 16-bit GEMM into an fp32 C (beta 1) accumulates master gradients.
//
// Row-major callers use the identity (A·B)ᵀ = Bᵀ·Aᵀ: a row-major (r, c) matrix is a
// column-major (c, r) one with leading dimension c.
#pragma once

#include <cstdint>
#include <string>

#include "precis/core/device.h"
#include "precis/core/dtype.h"
#include "precis/core/error.h"

namespace precis::cuda {

struct GemmOperand {
  const void* data;
  DType type;      // F32, BF16 or F16
  int64_t ld;      // leading dimension of the stored matrix
  bool transpose;  // op(X) = Xᵀ
};

// C (m, n) = alpha · op(A) (m, k) · op(B) (k, n) + beta · C, C column-major of type c_type
// with leading dimension ldc (not read when beta is 0). Throws Error on a leading dimension
// smaller than the stored rows, and on types outside check_gemm_types.
void gemm(Stream s, int64_t m, int64_t n, int64_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, void* c, DType c_type, int64_t ldc);

// The type combinations cuBLASLt runs with fp32 compute (its cublasLtMatmul table): A and B of
// one type, F32, BF16 or F16, and C of that type or F32. Both implementations refuse the rest.
inline void check_gemm_types(DType a, DType b, DType c) {
  const bool known = a == DType::F32 || is_16_bit(a);
  check(known && b == a && (c == a || c == DType::F32),
        "gemm: A " + dtype_name(a) + ", B " + dtype_name(b) + ", C " + dtype_name(c) +
            ": A and B must be of one type (F32, BF16 or F16) and C of that type or F32");
}

}  // namespace precis::cuda
