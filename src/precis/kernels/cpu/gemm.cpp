#include "precis/kernels/cpu/gemm.h"

#include <cblas.h>

#include <algorithm>

#include "precis/kernels/matmul_precision.h"

namespace precis::cpu {

namespace {

// The tile edge is the largest of 1024, 512, 256 that still gives 16 tiles (enough work for
// 16 cores); big tiles keep the packing overhead small.
int64_t tile_edge(int64_t m, int64_t n) {
  for (int64_t edge : {1024, 512})
    if (((m + edge - 1) / edge) * ((n + edge - 1) / edge) >= 16) return edge;
  return 256;
}

}  // namespace

// One single-threaded sgemm per tile of C (OpenBLAS runs single-threaded inside an OpenMP
// region). OpenBLAS's own threading splits a product differently for each thread count, and
// so rounds differently; here the tiles, and therefore the bits, depend on the shapes alone.
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

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (cpu_matmul_precision() == MatmulPrecision::kBf16)
    return gemm_bf16(bf16_path(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  gemm_tiled(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace precis::cpu
