// The CUDA backend's matrix products, with cuBLAS's semantics: column-major matrices,
// op(X) = X or Xᵀ, leading dimensions in elements. blas_cublaslt.cu runs them through
// cuBLASLt (fp32 compute); the kernel emulator of the tests maps them to a loop over exactly
// these semantics (tests/emulator/blas_emulated.cpp), which checks the callers' layouts,
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
//
// `bias`: null, or m elements of c_type added to every column in fp32 before C's element is
// rounded (cuBLASLt's CUBLASLT_EPILOGUE_BIAS, whose bias is of the output's type): C =
// round(alpha · op(A)·op(B) + bias), the 16-bit linear forward with no pass of its own. It needs
// beta 0 and a bias aligned to kGemmBiasAlignment bytes (gemm_bias_fits).
void gemm(Stream s, int64_t m, int64_t n, int64_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, void* c, DType c_type, int64_t ldc, const void* bias = nullptr);

// C = op(A)·op(B) + beta · C as gemm computes it (alpha 1, no bias), and `bias_gradient` (n
// elements of c_type, written, not added) = the column sums of op(B) over k, in fp32: cuBLASLt's
// CUBLASLT_EPILOGUE_BGRADB, which sums B as the product reads it. The linear backward's
// weight-gradient GEMM (op(B) = dy) so gives the bias gradient with no pass of its own. Returns
// false, touching nothing, where cuBLASLt has no kernel for the GEMM with this epilogue: the
// caller then sums the columns itself. Needs k > 0 and a bias_gradient aligned as a bias.
bool gemm_with_bias_gradient(Stream s, int64_t m, int64_t n, int64_t k, GemmOperand a,
                             GemmOperand b, float beta, void* c, DType c_type, int64_t ldc,
                             void* bias_gradient);

// cuBLASLt's epilogue reads the bias in vectors: 16-byte alignment (as Marian and others found
// on A100s; the 16-bit compute copy's tensors start 32-byte aligned).
constexpr uintptr_t kGemmBiasAlignment = 16;
inline bool gemm_bias_fits(const void* bias) {
  return reinterpret_cast<uintptr_t>(bias) % kGemmBiasAlignment == 0;
}

inline void check_gemm_bias(const void* bias, float beta) {
  check(bias == nullptr || (beta == 0.0f && gemm_bias_fits(bias)),
        "gemm: a bias epilogue needs beta 0 and a bias aligned to 16 bytes");
}

inline void check_gemm_bias_gradient(const void* bias_gradient, int64_t k) {
  check(bias_gradient != nullptr && gemm_bias_fits(bias_gradient) && k > 0,
        "gemm: a bias-gradient epilogue needs k > 0 and a gradient aligned to 16 bytes");
}

// The type combinations cuBLASLt runs with fp32 compute (its cublasLtMatmul table): A and B of
// one type, F32, BF16 or F16, and C of that type or F32. Both implementations refuse the rest.
inline void check_gemm_types(DType a, DType b, DType c) {
  const bool known = a == DType::F32 || is_16_bit(a);
  check(known && b == a && (c == a || c == DType::F32),
        "gemm: A " + dtype_name(a) + ", B " + dtype_name(b) + ", C " + dtype_name(c) +
            ": A and B must be of one type (F32, BF16 or F16) and C of that type or F32");
}

// Each stored matrix's leading dimension covers its rows (op(A) is m x k, op(B) k x n, C m x n).
inline void check_gemm_leading_dimensions(int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                                          const GemmOperand& b, int64_t ldc) {
  const int64_t a_rows = a.transpose ? k : m, b_rows = b.transpose ? n : k;
  check(a.ld >= a_rows && b.ld >= b_rows && ldc >= m,
        "gemm: leading dimensions " + std::to_string(a.ld) + ", " + std::to_string(b.ld) + ", " +
            std::to_string(ldc) + " for " + std::to_string(m) + "x" + std::to_string(n) + "x" +
            std::to_string(k));
}

// What every implementation of gemm_with_bias_gradient checks first; false where there is no
// product to sum B in (m or n is 0): it then runs nothing and the caller sums the columns.
inline bool gemm_with_bias_gradient_runs(int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                                         const GemmOperand& b, DType c_type, int64_t ldc,
                                         const void* bias_gradient) {
  check_gemm_leading_dimensions(m, n, k, a, b, ldc);
  check_gemm_types(a.type, b.type, c_type);
  check_gemm_bias_gradient(bias_gradient, k);
  return m > 0 && n > 0;
}

}  // namespace precis::cuda
