#include "precis/kernels/cpu/linear_few_rows.h"

#include <algorithm>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cpu/kernels_cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

namespace {

constexpr int kRows = int(kFewRowsMax);  // the rows every tile computes (zero past `rows`)

// x (rows, in) transposed to (in, kRows), zero past `rows`: column c of x is one aligned run.
void transpose_rows(const float* x, int64_t rows, int64_t in, std::vector<float>& xt) {
  xt.assign(size_t(in) * kRows, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < in; ++c) xt[size_t(c) * kRows + size_t(r)] = x[r * in + c];
}

// The weight rows of a tile of kTile output columns from n0; at the right edge the missing
// ones repeat the last row (computed, not stored).
template <int kTile>
void tile_rows(const float* w, int64_t in, int64_t out, int64_t n0, const float* (&rows)[kTile]) {
  for (int i = 0; i < kTile; ++i) rows[i] = w + std::min(n0 + i, out - 1) * in;
}

#if defined(__x86_64__)

// acc[i][r] = Σ_c w[n0 + i][c] · x[r][c], one fused multiply-add per term in c order: 12 weight
// rows by 32 rows in 24 of the 32 vector registers, each weight element loaded once.
constexpr int kTile512 = 12;
__attribute__((target("avx512f"))) void tile_avx512(const float* xt, const float* w, int64_t in,
                                                    int64_t out, int64_t n0,
                                                    float (&acc)[kTile512][kRows]) {
  const float* wr[kTile512];
  tile_rows(w, in, out, n0, wr);
  __m512 a[kTile512][2];
  for (int i = 0; i < kTile512; ++i) a[i][0] = a[i][1] = _mm512_setzero_ps();
  for (int64_t c = 0; c < in; ++c) {
    const __m512 x0 = _mm512_loadu_ps(xt + c * kRows), x1 = _mm512_loadu_ps(xt + c * kRows + 16);
    for (int i = 0; i < kTile512; ++i) {
      const __m512 wv = _mm512_set1_ps(wr[i][c]);
      a[i][0] = _mm512_fmadd_ps(wv, x0, a[i][0]);
      a[i][1] = _mm512_fmadd_ps(wv, x1, a[i][1]);
    }
  }
  for (int i = 0; i < kTile512; ++i) {
    _mm512_storeu_ps(acc[i], a[i][0]);
    _mm512_storeu_ps(acc[i] + 16, a[i][1]);
  }
}

// The same sums with 8-lane vectors: 3 weight rows by 32 rows in 12 of the 16 registers.
constexpr int kTile256 = 3;
__attribute__((target("avx2,fma"))) void tile_avx2(const float* xt, const float* w, int64_t in,
                                                   int64_t out, int64_t n0,
                                                   float (&acc)[kTile256][kRows]) {
  const float* wr[kTile256];
  tile_rows(w, in, out, n0, wr);
  __m256 a[kTile256][4];
  for (int i = 0; i < kTile256; ++i)
    for (int v = 0; v < 4; ++v) a[i][v] = _mm256_setzero_ps();
  for (int64_t c = 0; c < in; ++c) {
    const float* xc = xt + c * kRows;
    const __m256 x0 = _mm256_loadu_ps(xc), x1 = _mm256_loadu_ps(xc + 8),
                 x2 = _mm256_loadu_ps(xc + 16), x3 = _mm256_loadu_ps(xc + 24);
    for (int i = 0; i < kTile256; ++i) {
      const __m256 wv = _mm256_broadcast_ss(wr[i] + c);
      a[i][0] = _mm256_fmadd_ps(wv, x0, a[i][0]);
      a[i][1] = _mm256_fmadd_ps(wv, x1, a[i][1]);
      a[i][2] = _mm256_fmadd_ps(wv, x2, a[i][2]);
      a[i][3] = _mm256_fmadd_ps(wv, x3, a[i][3]);
    }
  }
  for (int i = 0; i < kTile256; ++i)
    for (int v = 0; v < 4; ++v) _mm256_storeu_ps(acc[i] + 8 * v, a[i][v]);
}

#endif

// y's columns tile by tile, the tiles split among the threads (each element is one thread's).
template <int kTile, class Tile>
void run_tiles(Tile tile, const std::vector<float>& xt, const float* w, const float* b, float* y,
               int64_t rows, int64_t in, int64_t out) {
  const int64_t tiles = (out + kTile - 1) / kTile;
#pragma omp parallel for schedule(static) if (tiles > 1 && tiles * in * kRows >= kParallelMin)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t n0 = t * kTile, width = std::min<int64_t>(kTile, out - n0);
    alignas(64) float acc[kTile][kRows];
    tile(xt.data(), w, in, out, n0, acc);
    for (int64_t r = 0; r < rows; ++r) {
      float* yr = y + r * out + n0;
      for (int64_t i = 0; i < width; ++i) yr[i] = b ? acc[i][r] + b[n0 + i] : acc[i][r];
    }
  }
}

}  // namespace

FewRowsIsa few_rows_isa() {
#if defined(__x86_64__)
  static const FewRowsIsa isa = [] {
#if defined(__AVX512F__)  // an AVX2 build (the AVX2 benchmarks) keeps to AVX2 on any CPU
    if (__builtin_cpu_supports("avx512f")) return FewRowsIsa::kAvx512;
#endif
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return FewRowsIsa::kAvx2;
    return FewRowsIsa::kNone;
  }();
  return isa;
#else
  return FewRowsIsa::kNone;
#endif
}

void linear_few_rows(FewRowsIsa isa, const float* x, const float* w, const float* b, float* y,
                     int64_t rows, int64_t in, int64_t out) {
  thread_local std::vector<float> xt;
  transpose_rows(x, rows, in, xt);
  switch (isa) {
#if defined(__x86_64__)
    case FewRowsIsa::kAvx512:
      return run_tiles<kTile512>(tile_avx512, xt, w, b, y, rows, in, out);
    case FewRowsIsa::kAvx2:
      return run_tiles<kTile256>(tile_avx2, xt, w, b, y, rows, in, out);
#endif
    default:
      break;
  }
  throw Error("linear_few_rows: no kernel for this CPU");
}

}  // namespace precis::cpu
