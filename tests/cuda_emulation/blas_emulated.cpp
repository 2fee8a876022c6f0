// cuda/blas.h in the kernel emulator: cuBLAS's column-major GEMM as a plain loop, with
// cuBLAS's own reading of op(X) and leading dimensions, so a launcher's wrong transpose or
// leading dimension gives wrong numbers (or an ASan report) here, as it would on a GPU.
#include <string>

#include "precis/core/error.h"
#include "precis/kernels/cuda/blas.h"

#include "device_memory.h"

namespace precis::cuda {

namespace {

// Element (i, j) of op(X), X stored column-major with leading dimension x.ld.
float element(const GemmOperand& x, int64_t i, int64_t j) {
  return x.transpose ? x.data[j + i * x.ld] : x.data[i + j * x.ld];
}

}  // namespace

void gemm(Stream, int64_t m, int64_t n, int64_t k, float alpha, GemmOperand a, GemmOperand b,
          float beta, float* c, int64_t ldc) {
  const int64_t a_rows = a.transpose ? k : m, b_rows = b.transpose ? n : k;
  check(a.ld >= a_rows && b.ld >= b_rows && ldc >= m && a.ld > 0 && b.ld > 0 && ldc > 0,
        "gemm: leading dimensions " + std::to_string(a.ld) + ", " + std::to_string(b.ld) + ", " +
            std::to_string(ldc) + " for " + std::to_string(m) + "x" + std::to_string(n) + "x" +
            std::to_string(k));
  cuda_emulation::DeviceMemoryAccess access;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      float acc = 0.0f;
      for (int64_t l = 0; l < k; ++l) acc += element(a, i, l) * element(b, l, j);
      float& out = c[i + j * ldc];
      // cuBLAS does not read C when beta is 0 (it may hold NaN).
      out = beta == 0.0f ? alpha * acc : alpha * acc + beta * out;
    }
}

}  // namespace precis::cuda
