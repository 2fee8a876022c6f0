// A linear layer in int8 on the CPU (`--quantization int8`): y (rows, out) = x (rows, in) · wᵀ
// (+ b) with
// - w quantized once per output channel n, symmetric: m = max_c |w[n][c]|, s_n = m / 127,
//   q_w = round(w · (127 / m)) in [-127, 127], ties to even (as CTranslate2 does);
// - each row r of x quantized the same way when the product runs: t_r, q_x;
// - int32 sums Σ_c q_x · q_w, exact, then y = float(sum) · (t_r · s_n) + b[n] in fp32.
// A row or a channel of zeros has scale 0 and gives exactly b.
//
// The products run on AVX512-VNNI's vpdpbusd, which multiplies unsigned by signed bytes: q_x
// goes in shifted by 128 (1 .. 255), and 128 · Σ_c q_w of the channel, kept with the weight,
// comes off the sum. The weight is laid out as linear_packed.h's panels of 32 output columns,
// four consecutive `in` bytes of a column to a 32-bit lane; blocks of up to 12 rows meet a
// panel, each row's four bytes broadcast against the panel's two registers, 24 accumulators.
// Elsewhere (no VNNI) the callers keep fp32.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace precis::cpu {

constexpr int64_t kInt8Panel = 32;  // output columns per panel

struct Int8Weight {
  int64_t in = 0, out = 0;
  int64_t groups = 0;  // ceil(in / 4): `in` in fours, zero past `in`
  // (panels, groups, 32 columns, 4 bytes), zero past `out`; 64-byte aligned.
  std::unique_ptr<int8_t, void (*)(void*)> panels{nullptr, nullptr};
  std::vector<float> scale;        // s_n per output channel
  std::vector<int32_t> shift_sum;  // 128 · Σ_c q_w[n][c] per output channel
};

// Whether this build and CPU run the int8 kernel (AVX512-VNNI and AVX512-BW).
bool int8_linear_runs();

// w (out, in) quantized per output channel and laid out in panels.
Int8Weight quantize_weight(const float* w, int64_t in, int64_t out);

// One row's symmetric quantization: q (n values in [-127, 127]) and its scale t (0 for a row
// of zeros).
float quantize_row(const float* x, int64_t n, int8_t* q);

// y = x · wᵀ + b (b may be null) for any rows, as the header says.
void linear_int8(const Int8Weight& w, const float* x, const float* b, float* y, int64_t rows);

}  // namespace precis::cpu
