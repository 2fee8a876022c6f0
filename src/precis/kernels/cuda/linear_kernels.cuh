// The CUDA twin's kernels of linear (kernels/linear.h) around its GEMMs (cuda/blas.h): the
// bias rows the forward GEMM accumulates onto, and the bias gradient, summed as the CPU sums
// it (in double, rows in order 0..n-1, then added to db once), so db is the CPU's bits.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/elementwise_kernels.cuh"

namespace precis::cuda {

// y (n, out) = the bias in every row.
PRECIS_KERNEL void bias_rows_kernel(const float* b, float* y, int64_t n, int64_t out) {
  PRECIS_GRID_STRIDE(i, n * out) y[i] = b[i % out];
}

// db (out) += Σ_rows dy (n, out): one thread per column, so neighbouring threads read
// neighbouring floats of each row.
PRECIS_KERNEL void bias_grad_kernel(const float* dy, float* db, int64_t n, int64_t out) {
  PRECIS_GRID_STRIDE(c, out) {
    double acc = 0.0;
    for (int64_t r = 0; r < n; ++r) acc += dy[r * out + c];
    db[c] += float(acc);
  }
}

}  // namespace precis::cuda
