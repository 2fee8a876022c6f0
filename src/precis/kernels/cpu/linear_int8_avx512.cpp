// linear_int8's AVX512-VNNI kernel (linear_int8_kernels.h): vpdpbusd multiplies unsigned by
// signed bytes, so a row goes in as q + 128 (1 .. 255) and 128 · Σ_c q_w of each channel, kept
// with the weight, comes off the sum. Blocks of up to 12 rows meet a panel, each row's four
// bytes broadcast against the panel's two registers: 24 accumulators.
#include <algorithm>
#include <array>
#include <utility>

#include "precis/kernels/cpu/linear_int8_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

#if defined(__x86_64__)

namespace {

#define PRECIS_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

constexpr int kVnniBlockRows = 12;

// (The masked forms of the conversions: GCC 12's unmasked ones pass an undefined vector through
// and warn wherever they inline.)
template <int R>
PRECIS_AVX512_VNNI void vnni_panel_block(const int8_t* panel, const uint8_t* xu, int64_t stride,
                                         const float* t, const Int8Weight& w, const float* b,
                                         float* y, int64_t n0, int64_t width) {
  // GCC's own type for the instruction's lanes: as __m512i (64-bit lanes) the accumulators were
  // read as another type than they were stored, and GCC kept them on the stack, a store and a
  // load per instruction.
  using Lanes = int32_t __attribute__((vector_size(64)));
  Lanes acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = Lanes{};
  for (int64_t g = 0; g < w.groups; ++g) {
    const __m512i w0 = _mm512_load_si512(panel + g * kInt8Panel * 4);
    const __m512i w1 = _mm512_load_si512(panel + g * kInt8Panel * 4 + 64);
    for (int r = 0; r < R; ++r) {
      int32_t four;
      __builtin_memcpy(&four, xu + r * stride + g * 4, 4);
      const __m512i xv = _mm512_set1_epi32(four);
      acc[r][0] = Lanes(_mm512_dpbusd_epi32(__m512i(acc[r][0]), xv, w0));
      acc[r][1] = Lanes(_mm512_dpbusd_epi32(__m512i(acc[r][1]), xv, w1));
    }
  }
  const __mmask16 m0 = width >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << width) - 1);
  const __mmask16 m1 = width >= 32  ? __mmask16(0xFFFF)
                       : width > 16 ? __mmask16((1u << (width - 16)) - 1)
                                    : __mmask16(0);
  const __m512i c0 = _mm512_maskz_loadu_epi32(m0, w.shift_sum.data() + n0);
  const __m512i c1 = _mm512_maskz_loadu_epi32(m1, w.shift_sum.data() + n0 + 16);
  const __m512 s0 = _mm512_maskz_loadu_ps(m0, w.scale.data() + n0);
  const __m512 s1 = _mm512_maskz_loadu_ps(m1, w.scale.data() + n0 + 16);
  const __m512 b0 = b ? _mm512_maskz_loadu_ps(m0, b + n0) : _mm512_setzero_ps();
  const __m512 b1 = b ? _mm512_maskz_loadu_ps(m1, b + n0 + 16) : _mm512_setzero_ps();
  for (int r = 0; r < R; ++r) {
    const __m512 tr = _mm512_set1_ps(t[r]);
    // float(sum) · (t_r · s_n) + b: the scales' product first, one rounding each.
    const __m512 y0 = _mm512_add_ps(
        _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_sub_epi32(__m512i(acc[r][0]), c0)),
                      _mm512_mul_ps(tr, s0)),
        b0);
    const __m512 y1 = _mm512_add_ps(
        _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_sub_epi32(__m512i(acc[r][1]), c1)),
                      _mm512_mul_ps(tr, s1)),
        b1);
    _mm512_mask_storeu_ps(y + r * w.out + n0, m0, y0);
    _mm512_mask_storeu_ps(y + r * w.out + n0 + 16, m1, y1);
  }
}

using VnniPanelBlock = void (*)(const int8_t*, const uint8_t*, int64_t, const float*,
                                const Int8Weight&, const float*, float*, int64_t, int64_t);

template <int... R>
constexpr std::array<VnniPanelBlock, sizeof...(R)> vnni_panel_blocks(
    std::integer_sequence<int, R...>) {
  return {&vnni_panel_block<R + 1>...};
}

void vnni_block(int rows, const int8_t* panel, const uint8_t* xu, int64_t stride, const float* t,
                const Int8Weight& w, const float* b, float* y, int64_t n0, int64_t width) {
  static constexpr auto kBlocks =
      vnni_panel_blocks(std::make_integer_sequence<int, kVnniBlockRows>());
  kBlocks[size_t(rows - 1)](panel, xu, stride, t, w, b, y, n0, width);
}

// quantize_row's q + 128, 16 at a time: the same values (cvtps2dq rounds to nearest even as
// nearbyint does; |x| <= max keeps every product within [-127, 127]).
PRECIS_AVX512_VNNI float vnni_quantize_row(const float* x, int64_t n, uint8_t* u) {
  __m512 max = _mm512_setzero_ps();
  int64_t c = 0;
  for (; c + 16 <= n; c += 16)
    max = _mm512_maskz_max_ps(0xFFFF, _mm512_abs_ps(_mm512_loadu_ps(x + c)), max);
  const __mmask16 tail = __mmask16((1u << (n - c)) - 1);
  max = _mm512_maskz_max_ps(0xFFFF, _mm512_abs_ps(_mm512_maskz_loadu_ps(tail, x + c)), max);
  // max_ps(|x|, max) keeps max where |x| is NaN, as quantize_row's std::max does.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, max);
  float m = 0.0f;
  for (float l : lanes) m = std::max(m, l);
  if (!(m > 0.0f)) {
    std::fill(u, u + n, uint8_t(128));
    return 0.0f;
  }
  const __m512 inverse = _mm512_set1_ps(127.0f / m);
  const __m128i shift = _mm_set1_epi8(char(0x80));
  for (c = 0; c + 16 <= n; c += 16) {
    const __m512i q =
        _mm512_maskz_cvtps_epi32(0xFFFF, _mm512_mul_ps(_mm512_loadu_ps(x + c), inverse));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(u + c),
                     _mm_xor_si128(_mm512_maskz_cvtsepi32_epi8(0xFFFF, q), shift));
  }
  if (c < n) {
    const __m512i q = _mm512_maskz_cvtps_epi32(
        0xFFFF, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, x + c), inverse));
    _mm_mask_storeu_epi8(u + c, tail, _mm_xor_si128(_mm512_maskz_cvtsepi32_epi8(0xFFFF, q), shift));
  }
  return m / 127.0f;
}

#undef PRECIS_AVX512_VNNI

constexpr Int8RowsKernel kVnniRows{true, kVnniBlockRows, vnni_quantize_row, vnni_block};

}  // namespace

const Int8RowsKernel* int8_avx512_vnni_rows() { return &kVnniRows; }

#else

const Int8RowsKernel* int8_avx512_vnni_rows() { return nullptr; }

#endif

}  // namespace precis::cpu
