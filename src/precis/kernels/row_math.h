// Reductions over a row that vectorise and still sum in one order: element j goes to lane
// j % kRowLanes, and the lanes combine in one fixed tree at the end, so the bits do not depend on
// the vector width or -march, and the loops vectorise (a single running max or sum cannot: each
// step would wait for the one before). The softmax rows of attention and of beam search's
// log-probabilities, and cross-entropy's rows over the vocabulary, take their sums here.
#pragma once

#include <algorithm>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/exp_math.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && !defined(__CUDACC__)
#include <immintrin.h>
#endif

namespace precis::row_math {

constexpr int kRowLanes = 8;

// max of row[0..n) (n >= 1); exact in any order. The portable form; row_max below runs 8 lanes
// in one vector register where the build has AVX-512 (GCC left this loop scalar).
PRECIS_HOST_DEVICE inline float row_max_portable(const float* row, int64_t n) {
  float lane[kRowLanes];
  for (int l = 0; l < kRowLanes; ++l) lane[l] = row[0];
  int64_t j = 0;
  for (; j + kRowLanes <= n; j += kRowLanes)
    for (int l = 0; l < kRowLanes; ++l) lane[l] = row[j + l] > lane[l] ? row[j + l] : lane[l];
  for (int l = 0; j + l < n; ++l) lane[l] = row[j + l] > lane[l] ? row[j + l] : lane[l];
  float max = lane[0];
  for (int l = 1; l < kRowLanes; ++l) max = lane[l] > max ? lane[l] : max;
  return max;
}

#if !(defined(__AVX512F__) && defined(__AVX512DQ__) && !defined(__CUDACC__))
inline namespace portable {
PRECIS_HOST_DEVICE inline float row_max(const float* row, int64_t n) {
  return row_max_portable(row, n);
}
}  // namespace portable
#endif

// Σ row[0..n) in double, lane by lane.
PRECIS_HOST_DEVICE inline double row_sum(const float* row, int64_t n) {
  double lane[kRowLanes] = {};
  int64_t j = 0;
  for (; j + kRowLanes <= n; j += kRowLanes)
    for (int l = 0; l < kRowLanes; ++l) lane[l] += double(row[j + l]);
  for (int l = 0; j + l < n; ++l) lane[l] += double(row[j + l]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Σ a[j]·b[j] over [0, n) in double, lane by lane: the softmax backward's row dot P·dP.
PRECIS_HOST_DEVICE inline double row_dot(const float* a, const float* b, int64_t n) {
  double lane[kRowLanes] = {};
  int64_t j = 0;
  for (; j + kRowLanes <= n; j += kRowLanes)
    for (int l = 0; l < kRowLanes; ++l) lane[l] += double(a[j + l]) * double(b[j + l]);
  for (int l = 0; j + l < n; ++l) lane[l] += double(a[j + l]) * double(b[j + l]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Σ_j exp(row[j] - max) over [0, n) in double, each exponential exp_math's in float, a chunk at
// a time (a buffer on the stack, vectorised), the chunks' terms in row_sum's lanes; the
// exponentials are written to `out` when given (`out` may be `row`). CPU loops only. The
// portable form; row_exp_sum below runs the AVX-512 one where the build has it.
inline double row_exp_sum_portable(const float* row, int64_t n, float max, float* out) {
  constexpr int64_t kChunk = 512;  // a multiple of kRowLanes
  double lane[kRowLanes] = {};
  float buffer[kChunk];
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t count = std::min(kChunk, n - start);
    float* e = out ? out + start : buffer;
    for (int64_t j = 0; j < count; ++j) e[j] = exp_math::exp(row[start + j] - max);
    int64_t j = 0;
    for (; j + kRowLanes <= count; j += kRowLanes)
      for (int l = 0; l < kRowLanes; ++l) lane[l] += double(e[j + l]);
    for (int l = 0; j + l < count; ++l) lane[l] += double(e[j + l]);
  }
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

#if defined(__AVX512F__) && defined(__AVX512DQ__) && !defined(__CUDACC__)
// Each form under its own inline namespace: code built with and without -march (the library
// and the tests) then links two functions, not two bodies of one inline function, of which the
// linker would keep one for every caller.
inline namespace avx512 {

// row_exp_sum_portable's value and exponentials, 16 at a time: exp_math::exp's operations in
// its order (multiplies and adds apart, never fused; the clamps and the out-of-range results as
// masked moves, so NaN stays NaN), and each 16 terms added to the 8 double lanes as two runs of
// 8, as the portable loop adds them. GCC vectorised the portable form 8 wide with blends for
// the selects; this was a seventh of a small model's beam search.
inline __m512 exp16(__m512 x) {
  using namespace exp_math;
  const __mmask16 below = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kLowest), _CMP_LT_OQ);
  const __mmask16 above = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kHighest), _CMP_GT_OQ);
  __m512 xc = _mm512_mask_mov_ps(x, below, _mm512_set1_ps(kLowest));
  xc = _mm512_mask_mov_ps(xc, above, _mm512_set1_ps(kHighest));
  const __m512 magic = _mm512_set1_ps(kRoundMagic);
  const __m512 shifted = _mm512_add_ps(_mm512_mul_ps(xc, _mm512_set1_ps(kLog2e)), magic);
  const __m512 n = _mm512_sub_ps(shifted, magic);
  const __m512 r = _mm512_sub_ps(_mm512_sub_ps(xc, _mm512_mul_ps(n, _mm512_set1_ps(kLn2Hi))),
                                 _mm512_mul_ps(n, _mm512_set1_ps(kLn2Lo)));
  __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
  p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f / 720.0f));
  p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f / 120.0f));
  p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f / 24.0f));
  p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f / 6.0f));
  p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(0.5f));
  p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f));
  p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f));
  const __m512i scale_bits = _mm512_maskz_slli_epi32(
      0xFFFF,
      _mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_castps_si512(magic)),
                       _mm512_set1_epi32(127)),
      23);
  __m512 value = _mm512_mul_ps(p, _mm512_castsi512_ps(scale_bits));
  value = _mm512_mask_mov_ps(value, below, _mm512_setzero_ps());
  return _mm512_mask_mov_ps(value, above, _mm512_set1_ps(__builtin_inff()));
}

// lane + e[0..8), then + e[8..16), in double. (The masked conversions: GCC 12's unmasked ones
// pass an undefined vector through and warn wherever they inline.)
inline __m512d add_terms(__m512d lane, __m512 e) {
  const __m256 low = _mm512_maskz_extractf32x8_ps(0xFF, e, 0);
  const __m256 high = _mm512_maskz_extractf32x8_ps(0xFF, e, 1);
  lane = _mm512_add_pd(lane, _mm512_maskz_cvtps_pd(0xFF, low));
  return _mm512_add_pd(lane, _mm512_maskz_cvtps_pd(0xFF, high));
}

// row_max_portable's lanes in one register: max_ps(x, lane) is `x > lane ? x : lane`, NaN and
// equal zeros keeping the lane, as the portable comparison does; the same combining tree.
inline float row_max(const float* row, int64_t n) {
  __m256 lanes = _mm256_set1_ps(row[0]);
  int64_t j = 0;
  for (; j + kRowLanes <= n; j += kRowLanes) lanes = _mm256_max_ps(_mm256_loadu_ps(row + j), lanes);
  alignas(32) float lane[kRowLanes];
  _mm256_store_ps(lane, lanes);
  for (int l = 0; j + l < n; ++l) lane[l] = row[j + l] > lane[l] ? row[j + l] : lane[l];
  float max = lane[0];
  for (int l = 1; l < kRowLanes; ++l) max = lane[l] > max ? lane[l] : max;
  return max;
}

inline double row_exp_sum(const float* row, int64_t n, float max, float* out) {
  const __m512 m = _mm512_set1_ps(max);
  __m512d lane = _mm512_setzero_pd();
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(row + j), m));
    if (out) _mm512_storeu_ps(out + j, e);
    lane = add_terms(lane, e);
  }
  if (j < n) {
    // The last terms: adding 0 to a lane (a sum of exponentials, never -0) leaves it as it was.
    const __mmask16 live = __mmask16((1u << (n - j)) - 1);
    const __m512 e =
        _mm512_maskz_mov_ps(live, exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(live, row + j), m)));
    if (out) _mm512_mask_storeu_ps(out + j, live, e);
    lane = add_terms(lane, e);
  }
  alignas(64) double l[kRowLanes];
  _mm512_store_pd(l, lane);
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

}  // namespace avx512
#else
inline namespace portable {
inline double row_exp_sum(const float* row, int64_t n, float max, float* out) {
  return row_exp_sum_portable(row, n, max, out);
}
}  // namespace portable
#endif

}  // namespace precis::row_math
