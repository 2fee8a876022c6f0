#include <algorithm>
#include <cstring>

#include "precis/kernels/cpu/column_blocks.h"
#include "precis/kernels/cpu/constant_weights_cpu.h"
#include "precis/kernels/cpu/gemm.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cpu/linear_few_rows.h"
#include "precis/kernels/matmul_precision.h"

namespace precis::cpu {

void linear_forward(const float* x, const float* w, const float* b, float* y, int64_t n, int64_t in,
                    int64_t out) {
  // `--quantization int8`: every product with a weight that holds still, in int8.
  if (cpu_matmul_precision() == MatmulPrecision::kFp32)
    if (const Int8Weight* quantized = constant_int8_weight(w, in, out))
      return linear_int8(*quantized, x, b, y, n);
  // bf16 products (`--quantization bf16`, or bf16 matmuls) with a weight that holds still: its
  // AMX packing done once, not on every call.
  if (const Bf16Weight* packed = constant_bf16_weight(w, in, out))
    return linear_bf16_packed(*packed, x, b, n, y);
  // A decoding step's few rows: the weights read in place, not packed (linear_few_rows.h).
  if (n >= kFewRowsMin && n <= kFewRowsMax && cpu_matmul_precision() == MatmulPrecision::kFp32)
    if (const FewRowsKernel kernel = few_rows_kernel(); kernel != FewRowsKernel::kNone)
      return linear_few_rows(kernel, x, w, b, y, n, in, out);
  // Beam search's batch x beams rows against a weight that holds still: packed once
  // (linear_packed.h; the same bits). Past kPackedRowsMax rows sgemm's packing pays for itself.
  if (n <= kPackedRowsMax && cpu_matmul_precision() == MatmulPrecision::kFp32)
    if (const PackedWeight* packed = constant_packed_weight(w, in, out))
      return linear_packed(*packed, x, b, y, n);
  float beta = 0.0f;
  if (b) {
    // Start from the bias rows and let the GEMM accumulate onto them (beta = 1).
#pragma omp parallel for schedule(static) if (n * out >= kParallelMin)
    for (int64_t i = 0; i < n; ++i) std::memcpy(y + i * out, b, sizeof(float) * out);
    beta = 1.0f;
  }
  // y (n, out) = x · wᵀ
  gemm(false, true, n, out, in, 1.0f, x, in, w, in, beta, y, out);
}

void linear_backward(const float* dy, const float* x, const float* w, float* dx, float* dw,
                     float* db, int64_t n, int64_t in, int64_t out) {
  // y = x·wᵀ + b  =>  dL/dx (n, in) = dy · w
  if (dx) gemm(false, false, n, in, out, 1.0f, dy, out, w, in, 0.0f, dx, in);
  //             dL/dw (out, in) += dyᵀ · x   (beta = 1 accumulates)
  if (dw) gemm(true, false, out, in, n, 1.0f, dy, out, x, in, 1.0f, dw, in);
  //             dL/db (out) += Σ_rows dy, in double, rows in order
  if (db) {
    for_column_blocks(out, [&](int64_t c0, int64_t width) {
      double acc[kColumnBlock] = {};
      for (int64_t r = 0; r < n; ++r) {
        const float* row = dy + r * out + c0;
#pragma omp simd
        for (int64_t c = 0; c < width; ++c) acc[c] += row[c];
      }
      for (int64_t c = 0; c < width; ++c) db[c0 + c] += float(acc[c]);
    });
  }
}

void linear_input_grad_to_fp32(const float* dy, const float* w, float* dx, bool accumulate,
                               int64_t n, int64_t in, int64_t out) {
  gemm(false, false, n, in, out, 1.0f, dy, out, w, in, accumulate ? 1.0f : 0.0f, dx, in);
}

}  // namespace precis::cpu
