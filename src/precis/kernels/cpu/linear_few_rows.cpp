#include "precis/kernels/cpu/linear_few_rows.h"

#include <algorithm>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cpu/lane_sum.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

namespace {

// The weight rows of a tile of kTile output columns from n0; at the right edge the missing
// ones repeat the last row (computed, not stored).
template <int kTile>
void tile_rows(const float* w, int64_t in, int64_t out, int64_t n0, const float* (&rows)[kTile]) {
  for (int i = 0; i < kTile; ++i) rows[i] = w + std::min(n0 + i, out - 1) * in;
}

#if defined(__x86_64__) && defined(__AVX512F__)

constexpr int kRows = int(kFewRowsMax);  // the rows every tile computes (zero past `rows`)

// x (rows, in) transposed to (in, kRows), zero past `rows`: column c of x is one aligned run.
void transpose_rows(const float* x, int64_t rows, int64_t in, std::vector<float>& xt) {
  xt.assign(size_t(in) * kRows, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < in; ++c) xt[size_t(c) * kRows + size_t(r)] = x[r * in + c];
}

// acc[i][r] = Σ_c w[n0 + i][c] · x[r][c], one fused multiply-add per term in c order: 12 weight
// rows by 32 rows in 24 of the 32 vector registers, each weight element loaded once.
constexpr int kTile512 = 12;
void tile_avx512(const float* xt, const float* w, int64_t in, int64_t out, int64_t n0,
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

#endif

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)

// AVX2's form: y[r][n] as 8-lane partial dot products of x's row r and w's row n, both read
// along `in` as they lie (no transpose), 3 weight rows against 4 rows of x in 12 of the 16
// registers; the lanes summed in one fixed tree at the end. The broadcast form above needs 32
// registers for its reuse; with 16 it ran at 0.7-0.9x sgemm, this one at 1.1-1.5x.
constexpr int kDotColumns = 3, kDotRows = 4, kDotLanes = 8;

// The lanes of the last, partial slice of a row (`left` < 8 floats): the rest read as zero.
inline __m256i live_lanes(int64_t left) {
  alignas(32) static constexpr int32_t kLaneIndex[kDotLanes] = {0, 1, 2, 3, 4, 5, 6, 7};
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(left)),
                            _mm256_load_si256(reinterpret_cast<const __m256i*>(kLaneIndex)));
}

// acc[j][i] += slice c of weight row i times slice c of x's row j; `load` reads a slice.
template <class Load>
inline void dot_step(const float* const (&wr)[kDotColumns], const float* const (&xr)[kDotRows],
                     int64_t c, Load load, __m256 (&acc)[kDotRows][kDotColumns]) {
  __m256 wv[kDotColumns];
  for (int i = 0; i < kDotColumns; ++i) wv[i] = load(wr[i] + c);
  for (int j = 0; j < kDotRows; ++j) {
    const __m256 xv = load(xr[j] + c);
    for (int i = 0; i < kDotColumns; ++i) acc[j][i] = _mm256_fmadd_ps(wv[i], xv, acc[j][i]);
  }
}

// Columns n0 .. n0 + 2 of y for every row; past `out` or `rows` the last column or row is
// computed again, not stored.
void dot_tile_avx2(const float* x, const float* w, const float* b, float* y, int64_t rows,
                   int64_t in, int64_t out, int64_t n0) {
  const float* wr[kDotColumns];
  tile_rows(w, in, out, n0, wr);
  for (int64_t r0 = 0; r0 < rows; r0 += kDotRows) {
    const float* xr[kDotRows];
    for (int j = 0; j < kDotRows; ++j) xr[j] = x + std::min<int64_t>(r0 + j, rows - 1) * in;
    __m256 acc[kDotRows][kDotColumns];
    for (auto& row : acc)
      for (__m256& a : row) a = _mm256_setzero_ps();
    // Whole slices, then the partial one: a test inside the loop took the register that kept
    // the last accumulator out of memory (a store-to-load chain through every step).
    const auto whole = [](const float* p) { return _mm256_loadu_ps(p); };
    int64_t c = 0;
    for (; c + kDotLanes <= in; c += kDotLanes) dot_step(wr, xr, c, whole, acc);
    if (c < in) {
      const __m256i live = live_lanes(in - c);
      const auto partial = [live](const float* p) { return _mm256_maskload_ps(p, live); };
      dot_step(wr, xr, c, partial, acc);
    }
    for (int64_t j = 0; j < kDotRows && r0 + j < rows; ++j)
      for (int64_t i = 0; i < kDotColumns && n0 + i < out; ++i) {
        const float dot = lane_sum(acc[j][i]);
        y[(r0 + j) * out + n0 + i] = b ? dot + b[n0 + i] : dot;
      }
  }
}

void run_dot_tiles(const float* x, const float* w, const float* b, float* y, int64_t rows,
                   int64_t in, int64_t out) {
  const int64_t tiles = (out + kDotColumns - 1) / kDotColumns;
#pragma omp parallel for schedule(static) if (tiles > 1 && tiles * in * rows >= kParallelMin)
  for (int64_t t = 0; t < tiles; ++t) dot_tile_avx2(x, w, b, y, rows, in, out, t * kDotColumns);
}

#endif

}  // namespace

FewRowsKernel few_rows_kernel() {
#if defined(__x86_64__) && defined(__AVX512F__)
  if (few_rows_kernel_runs(FewRowsKernel::kAvx512)) return FewRowsKernel::kAvx512;
#endif
  return few_rows_kernel_runs(FewRowsKernel::kAvx2) ? FewRowsKernel::kAvx2 : FewRowsKernel::kNone;
}

bool few_rows_kernel_runs(FewRowsKernel kernel) {
  switch (kernel) {
#if defined(__x86_64__) && defined(__AVX512F__)
    case FewRowsKernel::kAvx512: {
      static const bool usable = __builtin_cpu_supports("avx512f");
      return usable;
    }
#endif
#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
    case FewRowsKernel::kAvx2: {
      static const bool usable = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
      return usable;
    }
#endif
    default:
      return false;
  }
}

void linear_few_rows(FewRowsKernel kernel, const float* x, const float* w, const float* b, float* y,
                     int64_t rows, int64_t in, int64_t out) {
  check(few_rows_kernel_runs(kernel), "linear_few_rows: this build or CPU cannot run the kernel");
  switch (kernel) {
#if defined(__x86_64__) && defined(__AVX512F__)
    case FewRowsKernel::kAvx512: {
      thread_local std::vector<float> xt;
      transpose_rows(x, rows, in, xt);
      return run_tiles<kTile512>(tile_avx512, xt, w, b, y, rows, in, out);
    }
#endif
#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
    case FewRowsKernel::kAvx2:
      return run_dot_tiles(x, w, b, y, rows, in, out);
#endif
    default:
      (void)x, (void)w, (void)b, (void)y, (void)rows, (void)in, (void)out;
  }
}

}  // namespace precis::cpu
