#include "precis/kernels/cpu/gemm.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "precis/kernels/matmul_precision.h"

namespace precis::cpu {

namespace {

// OpenBLAS sends a product down one of three paths by its size: small-matrix kernels (m·n·k up
// to 100³ on its AVX-512 kernels), a direct kernel (no transposes, alpha 1, beta 0, m·n·k under
// 28·512²) and the blocked path (packed panels; k cut into blocks that depend on k alone). On the
// blocked path an element of C is the same sum in the same order whichever tile of C it falls
// in, as long as tile edges are multiples of 64: each element keeps its place in the 16-row and
// 4-column micro-panels. The other two paths sum in other orders. A tile at least this big, and
// at least kTileQuantum on each side, is on the blocked path with room to spare.
constexpr int64_t kBlockedPathMinimum = int64_t(16) << 20;  // m·n·k
constexpr int64_t kTileQuantum = 64;

bool on_blocked_path(int64_t rows, int64_t cols, int64_t k) {
  return rows >= kTileQuantum && cols >= kTileQuantum && rows * cols * k >= kBlockedPathMinimum;
}

struct TilePlan {
  int64_t row_edge, col_edge;
};

// A decoding step's product (fewer rows than a tile quantum, one row of tiles): at least this
// many column tiles, so that the threads share them evenly (3 tiles of 256 on 2 threads left
// one idle a third of the time: beam search's 768-column linears through sgemm, AVX2 build,
// 10.2 -> 9.3 s of linears per run).
constexpr int64_t kFewRowsColumnTiles = 12;

// Small products (and every product where tiles_keep_their_bits, below, says no): a fixed grid
// of square tiles, the largest of 1024, 512, 256 that still gives
// 16 tiles; products of fewer than kTileQuantum rows in column tiles of 256 down to 64, the
// largest that gives kFewRowsColumnTiles. Some tiles take the small or direct paths, so this
// grid must not depend on the thread count.
TilePlan fixed_grid(int64_t m, int64_t n) {
  if (m < kTileQuantum) {
    int64_t edge = 256;
    while (edge > kTileQuantum && (n + edge - 1) / edge < kFewRowsColumnTiles) edge /= 2;
    return {256, edge};
  }
  for (int64_t edge : {1024, 512})
    if (((m + edge - 1) / edge) * ((n + edge - 1) / edge) >= 16) return {edge, edge};
  return {256, 256};
}

int64_t edge_for(int64_t length, int64_t parts) {
  const int64_t edge = (length + parts - 1) / parts;
  return (edge + kTileQuantum - 1) / kTileQuantum * kTileQuantum;
}

// Products whose every tile can stay on the blocked path: one tile per thread (fewer where a
// tile would leave the path), the grid with the squarest tiles. Any such grid gives the same
// bits, so the thread count only changes the speed. Whole-product calls in few big tiles
// leave OpenBLAS's packing and blocking to work on large panels (a grid of 256-tiles ran
// 15-20% slower on bart-base's shapes).
TilePlan blocked_grid(int64_t m, int64_t n, int64_t k, int threads) {
  for (int64_t tiles = threads; tiles > 1; --tiles) {
    TilePlan best{0, 0};
    for (int64_t row_parts = 1; row_parts <= tiles; ++row_parts) {
      if (tiles % row_parts) continue;
      const TilePlan plan{edge_for(m, row_parts), edge_for(n, tiles / row_parts)};
      // The last row and column of tiles are the smallest.
      const int64_t last_rows = m - (m - 1) / plan.row_edge * plan.row_edge;
      const int64_t last_cols = n - (n - 1) / plan.col_edge * plan.col_edge;
      if (!on_blocked_path(last_rows, last_cols, k)) continue;
      if (std::min(plan.row_edge, plan.col_edge) > std::min(best.row_edge, best.col_edge))
        best = plan;
    }
    if (best.row_edge) return best;
  }
  return {m, n};
}

// One single-threaded sgemm per tile of C (OpenBLAS runs single-threaded inside an OpenMP
// region).
void sgemm_by_tiles(const TilePlan& plan, bool trans_a, bool trans_b, int64_t m, int64_t n,
                    int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                    int64_t ldb, float beta, float* c, int64_t ldc) {
  const int64_t row_tiles = (m + plan.row_edge - 1) / plan.row_edge;
  const int64_t col_tiles = (n + plan.col_edge - 1) / plan.col_edge;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t rt = 0; rt < row_tiles; ++rt)
    for (int64_t ct = 0; ct < col_tiles; ++ct) {
      int64_t r0 = rt * plan.row_edge, c0 = ct * plan.col_edge;
      int64_t rows = std::min(plan.row_edge, m - r0), cols = std::min(plan.col_edge, n - c0);
      // Rows r0.. of op(A): A's rows (no transpose) or columns (transposed); likewise B.
      const float* at = trans_a ? a + r0 : a + r0 * lda;
      const float* bt = trans_b ? b + c0 * ldb : b + c0;
      cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                  trans_b ? CblasTrans : CblasNoTrans, int(rows), int(cols), int(k), alpha, at,
                  int(lda), bt, int(ldb), beta, c + r0 * ldc + c0, int(ldc));
    }
}

// Whether this OpenBLAS keeps the blocked path's promise above on this CPU: a 512 x 512 x 256
// product, whole and in four 256-tiles, for each pair of transposes, compared bit for bit once
// per process. Intel's AVX-512 and AVX2 cores keep it; on an AMD EPYC (Zen 3) the Zen and
// Haswell cores of Debian's 0.3.21 do not (about 8,400 of the 262,144 elements differ,
// in columns and rows well inside the tiles), so a grid cut by the thread count would make the
// thread count change bits there.
bool tiles_keep_their_bits() {
  static const bool keep = [] {
    constexpr int64_t m = 512, n = 512, k = 256, edge = 256;
    std::vector<float> a(size_t(m * k)), b(size_t(k * n)), whole(size_t(m * n)),
        tiled(size_t(m * n));
    uint32_t state = 1;
    for (std::vector<float>* v : {&a, &b})
      for (float& e : *v) {
        state = state * 1664525u + 1013904223u;  // any values will do: a fixed LCG
        e = float(state >> 8) * 0x1p-24f - 0.5f;
      }
    for (bool trans_a : {false, true})
      for (bool trans_b : {false, true}) {
        const int64_t lda = trans_a ? m : k, ldb = trans_b ? k : n;
        sgemm_by_tiles({m, n}, trans_a, trans_b, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f,
                       whole.data(), n);
        sgemm_by_tiles({edge, edge}, trans_a, trans_b, m, n, k, 1.0f, a.data(), lda, b.data(), ldb,
                       0.0f, tiled.data(), n);
        if (whole != tiled) return false;
      }
    return true;
  }();
  return keep;
}

}  // namespace

// The tiles are chosen so that the bits depend on the shapes alone: a product that fits the
// blocked path everywhere is cut by the thread count, in tiles that all stay on it, where this
// OpenBLAS keeps an element's bits in any such tile; every other product always in the same
// fixed grid.
void gemm_tiled(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc) {
  const TilePlan plan = on_blocked_path(m, n, k) && tiles_keep_their_bits()
                            ? blocked_grid(m, n, k, omp_get_max_threads())
                            : fixed_grid(m, n);
  sgemm_by_tiles(plan, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (cpu_matmul_precision() == MatmulPrecision::kBf16)
    return gemm_bf16(bf16_path(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  gemm_tiled(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace precis::cpu
