#include "precis/kernels/cpu/linear_int8.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "precis/core/error.h"
#include "precis/kernels/cpu/kernels_cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

namespace {

#if defined(__x86_64__) && defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define PRECIS_INT8_KERNEL 1
// (Names apart from linear_packed.cpp's: a unity build compiles both in one unit. The masked
// forms of the conversions: GCC 12's unmasked ones pass an undefined vector through and warn
// wherever they inline.)
constexpr int64_t kInt8BlockRows = 12;  // rows against a panel at once: 24 accumulators

// Rows r0 .. r0 + R of y, columns n0 .. n0 + width (width <= 32), from panel `panel` and the
// rows' shifted bytes xu (R rows of `stride` bytes) with scales t.
template <int R>
void int8_panel_block(const int8_t* panel, const uint8_t* xu, int64_t stride, const float* t,
                      const Int8Weight& w, const float* b, float* y, int64_t n0, int64_t width) {
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

// quantize_row's q + 128 for the kernel, 16 at a time: the same values (cvtps2dq rounds to
// nearest even as nearbyint does; |x| <= max keeps every product within [-127, 127]).
float quantize_row_shifted(const float* x, int64_t n, uint8_t* u) {
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

using Int8PanelBlock = void (*)(const int8_t*, const uint8_t*, int64_t, const float*,
                                const Int8Weight&, const float*, float*, int64_t, int64_t);

template <int... R>
constexpr std::array<Int8PanelBlock, sizeof...(R)> int8_panel_blocks(
    std::integer_sequence<int, R...>) {
  return {&int8_panel_block<R + 1>...};
}
#endif

void* aligned_bytes(size_t bytes, const std::string& what) {
  void* p = std::aligned_alloc(64, std::max<size_t>((bytes + 63) / 64 * 64, 64));
  check(p != nullptr, "out of memory " + what);
  return p;
}

}  // namespace

bool int8_linear_runs() {
#ifdef PRECIS_INT8_KERNEL
  static const bool usable =
      __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
  return usable;
#else
  return false;
#endif
}

float quantize_row(const float* x, int64_t n, int8_t* q) {
  float max = 0.0f;
  for (int64_t c = 0; c < n; ++c) max = std::max(max, std::fabs(x[c]));
  if (!(max > 0.0f)) {
    std::fill(q, q + n, int8_t(0));
    return 0.0f;
  }
  const float inverse = 127.0f / max;
  for (int64_t c = 0; c < n; ++c)
    q[c] = int8_t(std::clamp(std::nearbyint(x[c] * inverse), -127.0f, 127.0f));
  return max / 127.0f;
}

Int8Weight quantize_weight(const float* w, int64_t in, int64_t out) {
  Int8Weight q;
  q.in = in;
  q.out = out;
  q.groups = (in + 3) / 4;
  q.scale.assign(size_t(out), 0.0f);
  q.shift_sum.assign(size_t(out), 0);
  const int64_t panels = (out + kInt8Panel - 1) / kInt8Panel, stride = q.groups * 4;
  const size_t bytes = size_t(panels * q.groups * kInt8Panel * 4);
  int8_t* p = static_cast<int8_t*>(aligned_bytes(
      bytes, "quantizing a " + std::to_string(out) + " x " + std::to_string(in) + " weight"));
  q.panels = {p, std::free};
  std::fill(p, p + bytes, int8_t(0));
#pragma omp parallel if (out * in >= kParallelMin)
  {
    std::vector<int8_t> row(size_t(stride), 0);
#pragma omp for schedule(static)
    for (int64_t n = 0; n < out; ++n) {
      q.scale[size_t(n)] = quantize_row(w + n * in, in, row.data());
      int32_t sum = 0;
      for (int64_t c = 0; c < in; ++c) sum += row[size_t(c)];
      q.shift_sum[size_t(n)] = 128 * sum;
      int8_t* panel = p + (n / kInt8Panel) * q.groups * kInt8Panel * 4;
      const int64_t j = n % kInt8Panel;
      for (int64_t c = 0; c < in; ++c)
        panel[(c / 4) * kInt8Panel * 4 + j * 4 + c % 4] = row[size_t(c)];
    }
  }
  return q;
}

void linear_int8(const Int8Weight& w, const float* x, const float* b, float* y, int64_t rows) {
  check(int8_linear_runs(), "linear_int8: this build or CPU has no AVX512-VNNI");
#ifdef PRECIS_INT8_KERNEL
  static constexpr auto kBlocks =
      int8_panel_blocks(std::make_integer_sequence<int, kInt8BlockRows>());
  const int64_t in = w.in, stride = w.groups * 4;
  // The rows' bytes, shifted to unsigned (q + 128; 128 past `in`, against zero weights).
  thread_local std::vector<uint8_t> xu;
  thread_local std::vector<float> t;
  xu.assign(size_t(rows * stride), uint8_t(128));
  t.resize(size_t(rows));
  // This thread's buffers, by pointer: inside the parallel regions the names would be each
  // thread's own.
  uint8_t* const bytes = xu.data();
  float* const scales = t.data();
#pragma omp parallel for schedule(static) if (rows * in >= kParallelMin)
  for (int64_t r = 0; r < rows; ++r)
    scales[r] = quantize_row_shifted(x + r * in, in, bytes + r * stride);
  const int64_t panels = (w.out + kInt8Panel - 1) / kInt8Panel;
#pragma omp parallel for schedule(static) if (panels > 1 && rows * in * w.out >= kParallelMin)
  for (int64_t p = 0; p < panels; ++p) {
    const int8_t* panel = w.panels.get() + p * w.groups * kInt8Panel * 4;
    const int64_t n0 = p * kInt8Panel, width = std::min(kInt8Panel, w.out - n0);
    for (int64_t r0 = 0; r0 < rows; r0 += kInt8BlockRows) {
      const int64_t block = std::min(kInt8BlockRows, rows - r0);
      kBlocks[size_t(block - 1)](panel, bytes + r0 * stride, stride, scales + r0, w, b,
                                 y + r0 * w.out, n0, width);
    }
  }
#else
  (void)w, (void)x, (void)b, (void)y, (void)rows;
#endif
}

}  // namespace precis::cpu
