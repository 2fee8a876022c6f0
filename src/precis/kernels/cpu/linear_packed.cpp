#include "precis/kernels/cpu/linear_packed.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "precis/core/error.h"
#include "precis/kernels/cpu/kernels_cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

namespace {

#if defined(__x86_64__) && defined(__AVX512F__)
// (Names apart from linear_int8.cpp's: a unity build compiles both in one unit.)
constexpr int64_t kPackedBlockRows = 12;  // rows of x against a panel at once: 24 accumulators

// Rows r0 .. r0 + R of y, columns n0 .. n0 + width (width <= 32) from panel `panel`.
template <int R>
void packed_panel_block(const float* panel, const float* x, int64_t in, const float* b, float* y,
                        int64_t out, int64_t n0, int64_t width) {
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t c = 0; c < in; ++c) {
    const __m512 w0 = _mm512_load_ps(panel + c * kPackedPanel);
    const __m512 w1 = _mm512_load_ps(panel + c * kPackedPanel + 16);
    for (int r = 0; r < R; ++r) {
      const __m512 xv = _mm512_set1_ps(x[r * in + c]);
      acc[r][0] = _mm512_fmadd_ps(w0, xv, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(w1, xv, acc[r][1]);
    }
  }
  const __mmask16 m0 = width >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << width) - 1);
  const __mmask16 m1 = width >= 32  ? __mmask16(0xFFFF)
                       : width > 16 ? __mmask16((1u << (width - 16)) - 1)
                                    : __mmask16(0);
  __m512 b0 = _mm512_setzero_ps(), b1 = _mm512_setzero_ps();
  if (b) {
    b0 = _mm512_maskz_loadu_ps(m0, b + n0);
    b1 = _mm512_maskz_loadu_ps(m1, b + n0 + 16);
  }
  for (int r = 0; r < R; ++r) {
    float* yr = y + r * out + n0;
    // The bias after the chain (sgemm's beta = 1 onto the bias rows added it there too).
    const __m512 y0 = b ? _mm512_add_ps(acc[r][0], b0) : acc[r][0];
    const __m512 y1 = b ? _mm512_add_ps(acc[r][1], b1) : acc[r][1];
    _mm512_mask_storeu_ps(yr, m0, y0);
    _mm512_mask_storeu_ps(yr + 16, m1, y1);
  }
}

using PackedPanelBlock = void (*)(const float*, const float*, int64_t, const float*, float*,
                                  int64_t, int64_t, int64_t);

template <int... R>
constexpr std::array<PackedPanelBlock, sizeof...(R)> packed_panel_blocks(
    std::integer_sequence<int, R...>) {
  return {&packed_panel_block<R + 1>...};
}
#endif

}  // namespace

bool packed_linear_runs() {
#if defined(__x86_64__) && defined(__AVX512F__)
  static const bool usable = __builtin_cpu_supports("avx512f");
  return usable;
#else
  return false;
#endif
}

PackedWeight pack_weight(const float* w, int64_t in, int64_t out) {
  PackedWeight packed;
  packed.in = in;
  packed.out = out;
  const int64_t panels = (out + kPackedPanel - 1) / kPackedPanel;
  const size_t bytes = size_t(panels * in * kPackedPanel) * sizeof(float);
  float* p = static_cast<float*>(std::aligned_alloc(64, std::max<size_t>(bytes, 64)));
  check(p != nullptr,
        "out of memory packing a " + std::to_string(out) + " x " + std::to_string(in) + " weight");
  packed.panels = {p, std::free};
#pragma omp parallel for schedule(static) if (panels > 1 && \
                                              panels * in * kPackedPanel >= kParallelMin)
  for (int64_t q = 0; q < panels; ++q) {
    float* panel = p + q * in * kPackedPanel;
    for (int64_t j = 0; j < kPackedPanel; ++j) {
      const int64_t n = q * kPackedPanel + j;
      for (int64_t c = 0; c < in; ++c) panel[c * kPackedPanel + j] = n < out ? w[n * in + c] : 0.0f;
    }
  }
  return packed;
}

void linear_packed(const PackedWeight& w, const float* x, const float* b, float* y, int64_t rows) {
  check(packed_linear_runs(), "linear_packed: this build or CPU cannot run the kernel");
#if defined(__x86_64__) && defined(__AVX512F__)
  static constexpr auto kBlocks =
      packed_panel_blocks(std::make_integer_sequence<int, kPackedBlockRows>());
  const int64_t in = w.in, out = w.out, panels = (out + kPackedPanel - 1) / kPackedPanel;
#pragma omp parallel for schedule(static) if (panels > 1 && rows * in * out >= kParallelMin)
  for (int64_t q = 0; q < panels; ++q) {
    const float* panel = w.panels.get() + q * in * kPackedPanel;
    const int64_t n0 = q * kPackedPanel, width = std::min(kPackedPanel, out - n0);
    for (int64_t r0 = 0; r0 < rows; r0 += kPackedBlockRows) {
      const int64_t block = std::min(kPackedBlockRows, rows - r0);
      kBlocks[size_t(block - 1)](panel, x + r0 * in, in, b, y + r0 * out, out, n0, width);
    }
  }
#else
  (void)w, (void)x, (void)b, (void)y, (void)rows;
#endif
}

}  // namespace precis::cpu
