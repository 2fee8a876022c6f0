// The CUDA twin of linear (kernels/linear.h): the products through cuda/blas.h, in the
// column-major view of our row-major tensors (y (n, out) row-major is yᵀ (out, n)
// column-major with leading dimension out), and the bias kernels of linear_kernels.cuh.
//
// In bf16/fp16 the GEMMs read 16-bit x, w and dy and accumulate in fp32; dx is rounded once and
// dw (the fp32 master gradient) accumulated with beta 1. The forward's bias is the 16-bit
// compute copy's, as autocast casts F.linear's bias: cuBLASLt's bias epilogue adds it to the
// fp32 result and rounds y once, in the GEMM (cuBLASLt documents the epilogue for 16-bit
// output only with a bias of the output's type, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE). An fp32
// bias (BART's final_logits_bias on the LM head), or one the epilogue cannot read (unaligned),
// takes the GEMM's fp32 result in scratch memory, a chunk of rows at a time, and
// bias_round_kernel adds the bias and rounds y once: the same arithmetic. The 16-bit backward's
// bias gradient comes from the weight gradient's GEMM (cuBLASLt's BGRADB epilogue).
#include <algorithm>

#include "precis/kernels/cuda/blas.h"
#include "precis/kernels/cuda/column_sums_launch.h"
#include "precis/kernels/cuda/elementwise_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/linear_kernels.cuh"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

// The fp32 scratch of the 16-bit forward with a bias: enough rows for a GEMM to fill the GPU,
// without holding an lm_head's whole fp32 logits. The emulator's is a few rows, so the op
// tests run the loop over chunks.
#if defined(PRECIS_CUDA_EMULATION) && !defined(PRECIS_CUDA_COUNTING)
constexpr int64_t kBiasChunkBytes = int64_t(4) << 10;
#else
constexpr int64_t kBiasChunkBytes = int64_t(64) << 20;
#endif

void linear_forward(const float* x, const float* w, const void* bias, DType bias_dtype, float* y,
                    int64_t n, int64_t in, int64_t out, Stream s) {
  check(!bias || bias_dtype == DType::F32,
        "linear: an fp32 forward with a " + dtype_name(bias_dtype) + " bias");
  const auto* b = static_cast<const float*>(bias);
  float beta = 0.0f;
  if (b) {  // the GEMM accumulates onto the bias rows, as the CPU's does
    declare_cost({double(out) * sizeof(float), double(n * out) * sizeof(float), 0, 0});
    PRECIS_LAUNCH_OVER(bias_rows_kernel, n * out, s, b, y, n, out);
    beta = 1.0f;
  }
  // yᵀ (out, n) = w (out, in: stored as (in, out), transposed) · xᵀ (in, n)
  gemm(s, out, n, in, 1.0f, {w, DType::F32, in, true}, {x, DType::F32, in, false}, beta, y,
       DType::F32, out);
}

// y = the GEMM's fp32 result + the bias (of B: fp32 or T), rounded once, in row chunks.
template <class T, class B>
void bias_after_gemm(const T* x, const T* w, const B* b, T* y, int64_t n, int64_t in, int64_t out,
                     Stream s) {
  constexpr DType t = dtype_of<T>();
  if (n == 0 || out == 0) return;
  const int64_t rows =
      std::min(n, std::max<int64_t>(1, kBiasChunkBytes / (out * int64_t(sizeof(float)))));
  auto* acc = static_cast<float*>(scratch(s, size_t(rows * out) * sizeof(float)));
  for (int64_t first = 0; first < n; first += rows) {
    const int64_t count = std::min(rows, n - first);
    // accᵀ (out, count) = w · x's rows first.. ᵀ, in fp32
    gemm(s, out, count, in, 1.0f, {w, t, in, true}, {x + first * in, t, in, false}, 0.0f, acc,
         DType::F32, out);
    declare_cost({double(count * out) * sizeof(float) + double(out) * sizeof(B),
                  double(count * out) * sizeof(T), double(count * out), 0});
    PRECIS_LAUNCH_OVER((bias_round_kernel<T, B>), count * out, s, acc, b, y + first * out, count,
                       out);
  }
}

// The 16-bit forward: x, w and y of T, the bias of bias_dtype (T, or fp32) or none.
template <class T>
void linear_forward_16(const T* x, const T* w, const void* b, DType bias_dtype, T* y, int64_t n,
                       int64_t in, int64_t out, Stream s) {
  constexpr DType t = dtype_of<T>();
  if (!b || (bias_dtype == t && gemm_bias_fits(b) && in > 0)) {  // the GEMM rounds y once
    gemm(s, out, n, in, 1.0f, {w, t, in, true}, {x, t, in, false}, 0.0f, y, t, out, b);
    return;
  }
  if (bias_dtype == t) return bias_after_gemm(x, w, static_cast<const T*>(b), y, n, in, out, s);
  check(bias_dtype == DType::F32, "linear: a " + dtype_name(bias_dtype) + " bias for " +
                                      dtype_name(t) + " activations (F32 or " + dtype_name(t) + ")");
  bias_after_gemm(x, w, static_cast<const float*>(b), y, n, in, out, s);
}

// The 16-bit weight gradient's GEMM with cuBLASLt's bias-gradient epilogue: the column sums of
// dy, in fp32, into scratch as the GEMM reads dy, then added onto db (the epilogue writes, db
// accumulates). False where cuBLASLt has no such kernel: then nothing has run.
template <class T>
bool weight_and_bias_gradients(const T* dy, const T* x, float* dw, float* db, int64_t n, int64_t in,
                               int64_t out, Stream s) {
  constexpr DType t = dtype_of<T>();
  auto* sums = static_cast<float*>(scratch(s, size_t(out) * sizeof(float)));
  // dwᵀ (in, out) += xᵀ (in, n) · dy (n, out), and sums (out) = Σ over n of dy's rows
  if (!gemm_with_bias_gradient(s, in, out, n, {x, t, in, false}, {dy, t, out, true}, 1.0f, dw,
                               DType::F32, in, sums))
    return false;
  declare_cost({2.0 * double(out) * sizeof(float), double(out) * sizeof(float), double(out), 0});
  PRECIS_LAUNCH_OVER(add_into_kernel<float>, out, s, sums, db, out);
  return true;
}

// dy, x, w and dx of T, in fp32 or 16-bit alike: dx rounded once to T, dw (the fp32 master
// gradient) += with beta 1. The bias gradient: in 16 bits the weight GEMM's epilogue sums it in
// fp32 (one pass less over dy; the training step's bias gradients were 2.4% of its modelled time);
// in fp32, and where the epilogue is not to be had, a column sum in double, the CPU's bits.
template <class T>
void linear_backward(const T* dy, const T* x, const T* w, T* dx, float* dw, float* db, int64_t n,
                     int64_t in, int64_t out, Stream s) {
  constexpr DType t = dtype_of<T>();
  // dxᵀ (in, n) = wᵀ (in, out: w as stored) · dyᵀ (out, n)
  if (dx) gemm(s, in, n, out, 1.0f, {w, t, in, false}, {dy, t, out, false}, 0.0f, dx, t, in);
  if constexpr (t != DType::F32)
    if (dw && db && n > 0 && weight_and_bias_gradients(dy, x, dw, db, n, in, out, s)) return;
  // dwᵀ (in, out) += xᵀ (in, n) · dy (n, out: dyᵀ as stored, transposed)
  if (dw)
    gemm(s, in, out, n, 1.0f, {x, t, in, false}, {dy, t, out, true}, 1.0f, dw, DType::F32, in);
  if (db && n > 0) {
    const int64_t chunks = column_chunks(n);
    auto* partials = static_cast<double*>(scratch(s, size_t(chunks * out) * sizeof(double)));
    declare_cost({double(n * out) * sizeof(T), double(chunks * out) * sizeof(double), double(n * out), 0});
    PRECIS_LAUNCH(bias_grad_partials_kernel<T>,
                  (dim3{unsigned((out + kColumnThreads - 1) / kColumnThreads), unsigned(chunks)}),
                  dim3{kColumnThreads}, s, dy, partials, n, out);
    add_column_partials(partials, chunks, out, db, s);
  }
}

// dy and w of T, dx fp32: the GEMM's fp32 result written (beta 0) or added (beta 1), unrounded.
template <class T>
void linear_input_grad_to_fp32(const T* dy, const T* w, float* dx, bool accumulate, int64_t n,
                               int64_t in, int64_t out, Stream s) {
  constexpr DType t = dtype_of<T>();
  // dxᵀ (in, n) (+)= wᵀ (in, out: w as stored) · dyᵀ (out, n)
  gemm(s, in, n, out, 1.0f, {w, t, in, false}, {dy, t, out, false}, accumulate ? 1.0f : 0.0f, dx,
       DType::F32, in);
}

}  // namespace

void add_linear_twins(Kernels& k) {
  // fp32 adds the bias before its GEMM, 16-bit after it (see the top of this file)
  k.linear_forward = by_dtype<linear_forward, linear_forward_16<bf16>, linear_forward_16<f16>>;
  k.linear_backward = PRECIS_BY_DTYPE(linear_backward);
  k.linear_input_grad_to_fp32 = PRECIS_BY_DTYPE(linear_input_grad_to_fp32);
}

}  // namespace precis::cuda
