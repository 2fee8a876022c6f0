#include <cblas.h>

#include <algorithm>
#include <cstring>

#include "precis/kernels/cpu/column_blocks.h"
#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

namespace {

// C (m, n) = alpha · op(A) · op(B) + beta · C, row-major, computed as a grid of square
// tiles of C, one single-threaded sgemm per tile (OpenBLAS runs single-threaded inside an
// OpenMP region). OpenBLAS's own threading splits a product differently for each thread
// count, and so rounds differently; here the tiles, and therefore the bits, depend on the
// shapes alone. The tile edge is the largest of 1024, 512, 256 that still gives 16 tiles
// (enough work for 16 cores); big tiles keep the packing overhead small.
int64_t tile_edge(int64_t m, int64_t n) {
  for (int64_t edge : {1024, 512})
    if (((m + edge - 1) / edge) * ((n + edge - 1) / edge) >= 16) return edge;
  return 256;
}

void gemm_tiled(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc) {
  const int64_t tile = tile_edge(m, n);
  const int64_t row_tiles = (m + tile - 1) / tile, col_tiles = (n + tile - 1) / tile;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t rt = 0; rt < row_tiles; ++rt)
    for (int64_t ct = 0; ct < col_tiles; ++ct) {
      int64_t r0 = rt * tile, c0 = ct * tile;
      int64_t rows = std::min(tile, m - r0), cols = std::min(tile, n - c0);
      // Rows r0.. of op(A): A's rows (no transpose) or columns (transposed); likewise B.
      const float* at = trans_a ? a + r0 : a + r0 * lda;
      const float* bt = trans_b ? b + c0 * ldb : b + c0;
      cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                  trans_b ? CblasTrans : CblasNoTrans, int(rows), int(cols), int(k), alpha, at,
                  int(lda), bt, int(ldb), beta, c + r0 * ldc + c0, int(ldc));
    }
}

}  // namespace

void linear_forward(const float* x, const float* w, const float* b, float* y, int64_t n, int64_t in,
                    int64_t out) {
  float beta = 0.0f;
  if (b) {
    // Start from the bias rows and let the GEMM accumulate onto them (beta = 1).
#pragma omp parallel for schedule(static) if (n * out >= kParallelMin)
    for (int64_t i = 0; i < n; ++i) std::memcpy(y + i * out, b, sizeof(float) * out);
    beta = 1.0f;
  }
  // y (n, out) = x · wᵀ
  gemm_tiled(false, true, n, out, in, 1.0f, x, in, w, in, beta, y, out);
}

void linear_backward(const float* dy, const float* x, const float* w, float* dx, float* dw,
                     float* db, int64_t n, int64_t in, int64_t out) {
  // y = x·wᵀ + b  =>  dL/dx (n, in) = dy · w
  if (dx) gemm_tiled(false, false, n, in, out, 1.0f, dy, out, w, in, 0.0f, dx, in);
  //                   dL/dw (out, in) += dyᵀ · x   (beta = 1 accumulates)
  if (dw) gemm_tiled(true, false, out, in, n, 1.0f, dy, out, x, in, 1.0f, dw, in);
  //                   dL/db (out) += Σ_rows dy, in double, rows in order
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

}  // namespace precis::cpu
