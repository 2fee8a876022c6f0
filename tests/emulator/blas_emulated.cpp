// cuda/blas.h in the kernel emulator: cuBLAS's column-major GEMM as a plain loop, with
// cuBLAS's own reading of op(X) and leading dimensions, so a launcher's wrong transpose or
// leading dimension gives wrong numbers (or an ASan report) here, as it would on a GPU. Each
// element is read by its type to float (bf16 and fp16 exactly, convert_math.h), the products
// summed in float, and C written once, rounded to nearest even when it is 16-bit. The bias
// gradient's epilogue (BGRADB) sums op(B)'s columns the same way.
#include <cstdint>
#include <string>

#include "precis/core/error.h"
#include "precis/kernels/convert_math.h"
#include "precis/kernels/cuda/blas.h"

#include "device_memory.h"

namespace precis::cuda {

namespace {

float load(const void* data, DType type, int64_t index) {
  if (type == DType::F32) return static_cast<const float*>(data)[index];
  const uint16_t bits = static_cast<const uint16_t*>(data)[index];
  return type == DType::BF16 ? convert_math::from_bf16(bits) : convert_math::from_f16(bits);
}

void store(void* data, DType type, int64_t index, float value) {
  if (type == DType::F32) {
    static_cast<float*>(data)[index] = value;
    return;
  }
  static_cast<uint16_t*>(data)[index] =
      type == DType::BF16 ? convert_math::to_bf16(value) : convert_math::to_f16(value);
}

// Element (i, j) of op(X), X stored column-major with leading dimension x.ld.
float element(const GemmOperand& x, int64_t i, int64_t j) {
  return load(x.data, x.type, x.transpose ? j + i * x.ld : i + j * x.ld);
}

// blas.h's check, and positive leading dimensions as cuBLAS's own API wants (ld >= max(1, rows)).
void check_leading_dimensions(int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                              const GemmOperand& b, int64_t ldc) {
  check_gemm_leading_dimensions(m, n, k, a, b, ldc);
  check(a.ld > 0 && b.ld > 0 && ldc > 0, "gemm: leading dimensions " + std::to_string(a.ld) + ", " +
                                             std::to_string(b.ld) + ", " + std::to_string(ldc) +
                                             " must be positive");
}

}  // namespace

void gemm(Stream, int64_t m, int64_t n, int64_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, void* c, DType c_type, int64_t ldc, const void* bias) {
  check_leading_dimensions(m, n, k, a, b, ldc);
  check_gemm_types(a.type, b.type, c_type);
  check_gemm_bias(bias, beta);
  cuda_emulation::DeviceMemoryAccess access;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      float acc = 0.0f;
      for (int64_t l = 0; l < k; ++l) acc += element(a, i, l) * element(b, l, j);
      const int64_t out = i + j * ldc;
      // cuBLAS does not read C when beta is 0 (it may hold NaN). The epilogue's bias is added
      // to the fp32 result, before C's one rounding.
      const float product = alpha * acc + (bias ? load(bias, c_type, i) : 0.0f);
      store(c, c_type, out, beta == 0.0f ? product : product + beta * load(c, c_type, out));
    }
}

// BGRADB: the product as gemm's, then each column of op(B) summed over k in float, in k's
// order (cuBLASLt's order is its own: callers' tests hold it to a tolerance), written once.
bool gemm_with_bias_gradient(Stream s, int64_t m, int64_t n, int64_t k, GemmOperand a,
                             GemmOperand b, float beta, void* c, DType c_type, int64_t ldc,
                             void* bias_gradient) {
  if (!gemm_with_bias_gradient_runs(m, n, k, a, b, c_type, ldc, bias_gradient)) return false;
  gemm(s, m, n, k, 1.0f, a, b, beta, c, c_type, ldc);  // also checks they are positive
  cuda_emulation::DeviceMemoryAccess access;
  for (int64_t j = 0; j < n; ++j) {
    float sum = 0.0f;
    for (int64_t l = 0; l < k; ++l) sum += element(b, l, j);
    store(bias_gradient, c_type, j, sum);
  }
  return true;
}

}  // namespace precis::cuda
