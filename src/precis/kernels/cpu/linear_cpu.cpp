#include <cblas.h>

#include <cstring>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

void linear_forward(const float* x, const float* w, const float* b, float* y, int64_t n, int64_t in,
                    int64_t out) {
  float beta = 0.0f;
  if (b) {
    // Start from the bias rows and let the GEMM accumulate onto them (beta = 1).
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) std::memcpy(y + i * out, b, sizeof(float) * out);
    beta = 1.0f;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(out), int(in), 1.0f, x, int(in),
              w, int(in), beta, y, int(out));
}

}  // namespace precis::cpu
