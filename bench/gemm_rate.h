// This machine's sgemm rate, the yardstick of the per-op tables: OpenBLAS's own threading
// (OpenMP, OMP_NUM_THREADS threads) on a square fp32 product, best of three after a warm-up,
// as the issue measured it through numpy (2048³). Measured in the benchmark's own process,
// after its timed steps, so both see the same machine state.
#pragma once

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

inline double sgemm_gflops(int n = 2048) {
  std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n);
  double best = 1e30;
  for (int i = 0; i < 4; ++i) {
    auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                n, 0.0f, c.data(), n);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i > 0) best = std::min(best, s);
  }
  return 2.0 * double(n) * n * n / best / 1e9;
}

}  // namespace bench
