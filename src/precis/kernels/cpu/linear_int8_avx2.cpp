// linear_int8's AVX2 kernel (linear_int8_kernels.h), for CPUs without VNNI (AMD Zen 1-3, Intel
// before Ice Lake). vpmaddubsw multiplies unsigned by signed bytes and adds pairs into int16
// with saturation, so the +128 shift of the VNNI kernel would overflow (2 · 255 · 127 > 32767).
// Instead each product is |q_x| · (sign(q_x) · q_w): both factors within 127, a pair's sum within
// 2 · 127 · 127 = 32258, never saturated; vpmaddwd against ones then adds the pairs into the
// column's int32 lane. The sums are the VNNI kernel's exact integers, so the bits are its bits.
//
// A block of up to 4 rows meets half a panel (16 columns, two registers) at a time: 8
// accumulators, 2 weight registers, the broadcast row and its magnitude, within AVX2's 16.
#include <algorithm>
#include <cmath>

#include "precis/kernels/cpu/linear_int8_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

#if defined(__x86_64__)

namespace {

#define PRECIS_AVX2 __attribute__((target("avx2")))

constexpr int kAvx2BlockRows = 4;

using Int32Lanes = int32_t __attribute__((vector_size(32)));

// Lanes 0 .. count - 1 set (count in 0 .. 8), for masked loads and stores of a panel's edge.
PRECIS_AVX2 __m256i first_lanes(int64_t count) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(std::clamp<int64_t>(count, 0, 8))), lane);
}

template <bool Masked>
PRECIS_AVX2 __m256 load_columns(const float* p, __m256i mask) {
  return Masked ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}

// float(sum) · (t_r · s_n) + b for R rows of 16 columns from c0, the scales' product first, one
// rounding each; Masked: only the first `left` columns (fewer than 16) are read and written.
template <int R, bool Masked>
PRECIS_AVX2 void avx2_store_rows(const Int32Lanes (&acc)[R][2], const float* t, const Int8Weight& w,
                                 const float* b, float* y, int64_t c0, int64_t left) {
  const __m256i m0 = first_lanes(left), m1 = first_lanes(left - 8);
  const __m256 s0 = load_columns<Masked>(w.scale.data() + c0, m0),
               s1 = load_columns<Masked>(w.scale.data() + c0 + 8, m1);
  const __m256 b0 = b ? load_columns<Masked>(b + c0, m0) : _mm256_setzero_ps();
  const __m256 b1 = b ? load_columns<Masked>(b + c0 + 8, m1) : _mm256_setzero_ps();
  for (int r = 0; r < R; ++r) {
    const __m256 tr = _mm256_set1_ps(t[r]);
    const __m256 y0 = _mm256_add_ps(
        _mm256_mul_ps(_mm256_cvtepi32_ps(__m256i(acc[r][0])), _mm256_mul_ps(tr, s0)), b0);
    const __m256 y1 = _mm256_add_ps(
        _mm256_mul_ps(_mm256_cvtepi32_ps(__m256i(acc[r][1])), _mm256_mul_ps(tr, s1)), b1);
    float* out = y + r * w.out + c0;
    if (Masked) {
      _mm256_maskstore_ps(out, m0, y0);
      _mm256_maskstore_ps(out + 8, m1, y1);
    } else {
      _mm256_storeu_ps(out, y0);
      _mm256_storeu_ps(out + 8, y1);
    }
  }
}

template <int R>
PRECIS_AVX2 void avx2_panel_block(const int8_t* panel, const uint8_t* xs, int64_t stride,
                                  const float* t, const Int8Weight& w, const float* b, float* y,
                                  int64_t n0, int64_t width) {
  const __m256i ones = _mm256_set1_epi16(1);
  for (int64_t half = 0; half * 16 < width; ++half) {
    // GCC's own type for the sums' lanes, added with +: as __m256i (64-bit lanes) GCC kept the
    // accumulators on the stack, a store and a load per add (as in the VNNI kernel).
    Int32Lanes acc[R][2];
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = Int32Lanes{};
    const int8_t* columns = panel + half * 64;
    for (int64_t g = 0; g < w.groups; ++g) {
      const __m256i w0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(columns + g * 128));
      const __m256i w1 =
          _mm256_load_si256(reinterpret_cast<const __m256i*>(columns + g * 128 + 32));
      for (int r = 0; r < R; ++r) {
        int32_t four;
        __builtin_memcpy(&four, xs + r * stride + g * 4, 4);
        const __m256i xv = _mm256_set1_epi32(four);
        const __m256i magnitude = _mm256_sign_epi8(xv, xv);
        acc[r][0] += Int32Lanes(
            _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(w0, xv)), ones));
        acc[r][1] += Int32Lanes(
            _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(w1, xv)), ones));
      }
    }
    const int64_t c0 = n0 + half * 16, left = width - half * 16;
    if (left >= 16)  // (a masked store costs a microcoded sequence on AMD's cores: edges only)
      avx2_store_rows<R, false>(acc, t, w, b, y, c0, left);
    else
      avx2_store_rows<R, true>(acc, t, w, b, y, c0, left);
  }
}

PRECIS_AVX2 void avx2_block(int rows, const int8_t* panel, const uint8_t* xs, int64_t stride,
                            const float* t, const Int8Weight& w, const float* b, float* y,
                            int64_t n0, int64_t width) {
  switch (rows) {
    case 1:
      return avx2_panel_block<1>(panel, xs, stride, t, w, b, y, n0, width);
    case 2:
      return avx2_panel_block<2>(panel, xs, stride, t, w, b, y, n0, width);
    case 3:
      return avx2_panel_block<3>(panel, xs, stride, t, w, b, y, n0, width);
    case 4:
      return avx2_panel_block<4>(panel, xs, stride, t, w, b, y, n0, width);
  }
}

// quantize_row's q, 32 at a time: the same values (cvtps2dq rounds to nearest even as nearbyint
// does; |x| <= max keeps every value within [-127, 127], so the saturating packs never clamp).
PRECIS_AVX2 float avx2_quantize_row(const float* x, int64_t n, uint8_t* bytes) {
  const __m256 magnitude_bits = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  __m256 max = _mm256_setzero_ps();
  int64_t c = 0;
  // max_ps(|x|, max) keeps max where |x| is NaN, as quantize_row's std::max does.
  for (; c + 8 <= n; c += 8)
    max = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + c), magnitude_bits), max);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, max);
  float m = 0.0f;
  for (float l : lanes) m = std::max(m, l);
  for (; c < n; ++c) m = std::max(m, std::fabs(x[c]));
  int8_t* q = reinterpret_cast<int8_t*>(bytes);
  if (!(m > 0.0f)) {
    std::fill(q, q + n, int8_t(0));
    return 0.0f;
  }
  const float inverse = 127.0f / m;
  const __m256 inverse8 = _mm256_set1_ps(inverse);
  // packs work within 128-bit halves: the dwords come out in the order 0 4 1 5 2 6 3 7.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (c = 0; c + 32 <= n; c += 32) {
    __m256i v[4];
    for (int i = 0; i < 4; ++i)
      v[i] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + c + 8 * i), inverse8));
    const __m256i bytes32 =
        _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + c),
                        _mm256_permutevar8x32_epi32(bytes32, order));
  }
  for (; c < n; ++c) q[c] = int8_t(std::clamp(std::nearbyint(x[c] * inverse), -127.0f, 127.0f));
  return m / 127.0f;
}

#undef PRECIS_AVX2

constexpr Int8RowsKernel kAvx2Rows{false, kAvx2BlockRows, avx2_quantize_row, avx2_block};

}  // namespace

const Int8RowsKernel* int8_avx2_rows() { return &kAvx2Rows; }

#else

const Int8RowsKernel* int8_avx2_rows() { return nullptr; }

#endif

}  // namespace precis::cpu
