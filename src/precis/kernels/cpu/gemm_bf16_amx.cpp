// The AMX bf16 kernel. Built with -mamx-tile -mamx-bf16 and outside the unity batches
// (CMakeLists.txt), and reached only when amx_bf16_usable() says so, so no other code is
// compiled for AMX.
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "precis/kernels/cpu/amx_tiles.h"
#include "precis/kernels/cpu/gemm.h"

namespace precis::cpu {

namespace {

// C block (i0, j0), 32 x 32, in amx_tiles.h's tiles (0-3 C's four 16 x 16 fp32 blocks, 4-5 two
// 16-row strips of A of 32 bf16, 6-7 two strips of B in pair layout, 16 rows of 16 pairs),
// continued over k in [k0, k1) from its partial sums in acc (row stride ld floats) and stored
// back there. Tile loads and stores move fp32 exactly, so stopping at a chunk's end changes
// nothing: every element's sum runs over k in one order, whatever the chunking and whichever
// thread computes the block.
void block(const uint16_t* ap, const uint16_t* bp, int64_t kpad, int64_t i0, int64_t j0,
           int64_t k0, int64_t k1, float* acc, int64_t ld) {
  _tile_loadd(0, acc, ld * 4);
  _tile_loadd(1, acc + 16, ld * 4);
  _tile_loadd(2, acc + 16 * ld, ld * 4);
  _tile_loadd(3, acc + 16 * ld + 16, ld * 4);
  // Strips i0 / 16 and i0 / 16 + 1 of A, j0 / 16 and j0 / 16 + 1 of B (gemm.h's layouts).
  const uint16_t* a0 = ap + (i0 / 16) * (kpad / 32) * 512;
  const uint16_t* a1 = a0 + (kpad / 32) * 512;
  const uint16_t* b0 = bp + (j0 / 16) * (kpad / 2) * 32;
  const uint16_t* b1 = b0 + (kpad / 2) * 32;
  for (int64_t k = k0; k < k1; k += 32) {
    _tile_loadd(4, a0 + (k / 32) * 512, 64);
    _tile_loadd(5, a1 + (k / 32) * 512, 64);
    _tile_loadd(6, b0 + (k / 2) * 32, 64);
    _tile_loadd(7, b1 + (k / 2) * 32, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, acc, ld * 4);
  _tile_stored(1, acc + 16, ld * 4);
  _tile_stored(2, acc + 16 * ld, ld * 4);
  _tile_stored(3, acc + 16 * ld + 16, ld * 4);
}

}  // namespace

void gemm_bf16_amx_packed(const uint16_t* ap, const uint16_t* bp, int64_t mpad, int64_t npad,
                          int64_t kpad, int64_t m, int64_t n, float alpha, float beta, float* c,
                          int64_t ldc, const float* bias) {
  // Threads take 128 x 128 squares of C (4 x 4 blocks) and sweep k in chunks of 512, so the
  // chunk's strips of A and B (128 KB each) stay in the core's L2 while the square's 16 blocks
  // use them; the square's partial sums wait in `square` (64 KB) between chunks. Without the
  // chunks, a long k (the LM head's 50k vocabulary) streams A and B from memory per block.
  constexpr int64_t kSquare = 128, kChunk = 512;
  const int64_t row_squares = (mpad + kSquare - 1) / kSquare;
  const int64_t col_squares = (npad + kSquare - 1) / kSquare;
#pragma omp parallel
  {
    configure_amx_tiles_16x64();
    std::vector<float> square(size_t(kSquare * kSquare));
#pragma omp for collapse(2) schedule(static)
    for (int64_t rs = 0; rs < row_squares; ++rs)
      for (int64_t cs = 0; cs < col_squares; ++cs) {
        const int64_t r0 = rs * kSquare, c0 = cs * kSquare;
        const int64_t r1 = std::min(mpad, r0 + kSquare), c1 = std::min(npad, c0 + kSquare);
        std::fill(square.begin(), square.end(), 0.0f);
        for (int64_t k0 = 0; k0 < kpad; k0 += kChunk)
          for (int64_t i0 = r0; i0 < r1; i0 += 32)
            for (int64_t j0 = c0; j0 < c1; j0 += 32)
              block(ap, bp, kpad, i0, j0, k0, std::min(kpad, k0 + kChunk),
                    square.data() + (i0 - r0) * kSquare + (j0 - c0), kSquare);
        for (int64_t i = r0; i < std::min(m, r1); ++i) {
          float* out = c + i * ldc;
          const float* sum = square.data() + (i - r0) * kSquare - c0;
          // beta = 0 must not read C: it may hold anything, NaN included. A bias is added where
          // beta = 1 would have added it from C's rows (1 · x is exact: the same bits).
          if (bias)
            for (int64_t j = c0; j < std::min(n, c1); ++j) out[j] = alpha * sum[j] + bias[j];
          else if (beta == 0.0f)
            for (int64_t j = c0; j < std::min(n, c1); ++j) out[j] = alpha * sum[j];
          else
            for (int64_t j = c0; j < std::min(n, c1); ++j) out[j] = alpha * sum[j] + beta * out[j];
        }
      }
    _tile_release();
  }
}

}  // namespace precis::cpu
