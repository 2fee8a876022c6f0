// linear_int8's AMX-INT8 kernel (linear_int8_kernels.h). TDPBUSD multiplies unsigned by signed
// bytes as vpdpbusd does, so the rows are the VNNI kernel's (q + 128, its quantize_row) and the
// shift comes off the same way. The panels are already B tiles: group g of a panel holds 32
// columns of 4 bytes, so columns 0-15 of 16 consecutive groups are 16 rows of 64 bytes at a
// stride of 128, and columns 16-31 the 64 bytes after them. Blocks of 32 rows (two A tiles of 16
// rows x 64 bytes) meet a panel (two B tiles): four 16 x 16 int32 accumulators, the exact sums
// every kernel has, then the header's float expression.
//
// Built with -mamx-tile -mamx-int8 and outside the unity batches (CMakeLists.txt), so nothing
// else is compiled for AMX; reached only where int8_kernel_runs(kAmx) has asked Linux for the
// tile state. Needs the weight's groups in whole tiles (quantize_weight pads them to 16) and 32
// readable rows per block (linear_int8 pads the rows' bytes to whole blocks).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "precis/kernels/cpu/amx_tiles.h"
#include "precis/kernels/cpu/linear_int8_kernels.h"

namespace precis::cpu {

namespace {

constexpr int kAmxBlockRows = 32;

// Tiles 0-3: the accumulators (rows 0-15 / 16-31 x columns 0-15 / 16-31), 4-5 the two strips of
// rows, 6-7 the panel's two halves (amx_tiles.h).
void amx_configure_thread() { configure_amx_tiles_16x64(); }

void amx_release_thread() { _tile_release(); }

// y's rows from the block's sums: float(sum - shift) · (t_r · s_n) + b, the scales' product
// first and one rounding each, as every kernel (the VNNI kernel's instructions, 16 columns at a
// time).
__attribute__((target("avx512f"))) void amx_store_rows(const int32_t (*sums)[kInt8Panel], int rows,
                                                       const float* t, const Int8Weight& w,
                                                       const float* b, float* y, int64_t n0,
                                                       int64_t width) {
  for (int half = 0; half < 2; ++half) {
    const int64_t first = half * 16, count = std::min<int64_t>(16, width - first);
    if (count <= 0) break;
    const __mmask16 m = count == 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1);
    const __m512i c = _mm512_maskz_loadu_epi32(m, w.shift_sum.data() + n0 + first);
    const __m512 s = _mm512_maskz_loadu_ps(m, w.scale.data() + n0 + first);
    const __m512 bias = b ? _mm512_maskz_loadu_ps(m, b + n0 + first) : _mm512_setzero_ps();
    for (int r = 0; r < rows; ++r) {
      const __m512i sum = _mm512_load_si512(&sums[r][first]);
      const __m512 scaled =
          _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_sub_epi32(sum, c)),
                        _mm512_mul_ps(_mm512_set1_ps(t[r]), s));
      _mm512_mask_storeu_ps(y + r * w.out + n0 + first, m, _mm512_add_ps(scaled, bias));
    }
  }
}

void amx_block(int rows, const int8_t* panel, const uint8_t* xu, int64_t stride, const float* t,
               const Int8Weight& w, const float* b, float* y, int64_t n0, int64_t width) {
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t g = 0; g < w.groups; g += 16) {
    _tile_loadd(4, xu + g * 4, stride);
    _tile_loadd(5, xu + 16 * stride + g * 4, stride);
    _tile_loadd(6, panel + g * kInt8Panel * 4, kInt8Panel * 4);
    _tile_loadd(7, panel + g * kInt8Panel * 4 + 64, kInt8Panel * 4);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  alignas(64) int32_t sums[kAmxBlockRows][kInt8Panel];
  _tile_stored(0, &sums[0][0], kInt8Panel * 4);
  _tile_stored(1, &sums[0][16], kInt8Panel * 4);
  _tile_stored(2, &sums[16][0], kInt8Panel * 4);
  _tile_stored(3, &sums[16][16], kInt8Panel * 4);
  amx_store_rows(sums, rows, t, w, b, y, n0, width);
}

}  // namespace

const Int8RowsKernel* int8_amx_rows() {
  // The rows are quantized as the VNNI kernel does (every AMX-INT8 CPU has AVX512-VNNI).
  static const Int8RowsKernel kernel{
      true,      kAmxBlockRows,        int8_avx512_vnni_rows()->quantize_row,
      amx_block, amx_configure_thread, amx_release_thread};
  return &kernel;
}

}  // namespace precis::cpu
