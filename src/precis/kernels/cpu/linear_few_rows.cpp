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

bool few_rows_kernel_usable() {
#if defined(__x86_64__) && defined(__AVX512F__)
  static const bool usable = __builtin_cpu_supports("avx512f");
  return usable;
#else
  return false;
#endif
}

void linear_few_rows(const float* x, const float* w, const float* b, float* y, int64_t rows,
                     int64_t in, int64_t out) {
  check(few_rows_kernel_usable(), "linear_few_rows: this build or CPU has no AVX-512");
#if defined(__x86_64__)
  thread_local std::vector<float> xt;
  transpose_rows(x, rows, in, xt);
  run_tiles<kTile512>(tile_avx512, xt, w, b, y, rows, in, out);
#endif
}

}  // namespace precis::cpu
