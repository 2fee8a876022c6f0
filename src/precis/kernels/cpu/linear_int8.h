// A linear layer in int8 on the CPU (`--quantization int8`): y (rows, out) = x (rows, in) · wᵀ
// (+ b) with
// - w quantized once per output channel n, symmetric: m = max_c |w[n][c]|, s_n = m / 127,
//   q_w = round(w · (127 / m)) in [-127, 127], ties to even (as CTranslate2 does);
// - each row r of x quantized the same way when the product runs: t_r, q_x;
// - int32 sums Σ_c q_x · q_w, exact, then y = float(sum) · (t_r · s_n) + b[n] in fp32.
// A row or a channel of zeros has scale 0 and gives exactly b.
//
// The products run on the best kernel this CPU has (linear_int8_kernels.h), all with the same
// integers and so the same bits: AMX-INT8's tdpbusd and AVX512-VNNI's vpdpbusd (q_x shifted by
// 128 into unsigned bytes, 128 · Σ_c q_w of the channel taken off the sum), else AVX2's
// vpmaddubsw on |q_x| and sign(q_x) · q_w. The weight is laid out in panels of 32 output
// columns, four consecutive `in` bytes of a column to a 32-bit lane (what the instructions and
// AMX's tiles read), `in` padded with zeros to whole tiles (64 bytes). Elsewhere the callers
// keep fp32.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace precis::cpu {

constexpr int64_t kInt8Panel = 32;  // output columns per panel

struct Int8Weight {
  int64_t in = 0, out = 0;
  int64_t groups = 0;  // `in` in fours, zero past `in`: ceil(in / 4) rounded up to 16
  // (panels, groups, 32 columns, 4 bytes), zero past `out`; 64-byte aligned.
  std::unique_ptr<int8_t, void (*)(void*)> panels{nullptr, nullptr};
  std::vector<float> scale;        // s_n per output channel
  std::vector<int32_t> shift_sum;  // 128 · Σ_c q_w[n][c] per output channel
};

enum class Int8Kernel { kNone, kAvx2, kAvx512Vnni, kAmx };

// Whether this CPU runs `kernel`.
bool int8_kernel_runs(Int8Kernel kernel);
// The fastest kernel this CPU runs (AMX-INT8, AVX512-VNNI, AVX2), asked once; kNone where there
// is none. PRECIS_CPU_INT8=amx-int8|avx512-vnni|avx2 picks another the CPU runs (benchmarks).
Int8Kernel int8_kernel();
const char* int8_kernel_name(Int8Kernel kernel);  // "AMX-INT8", "AVX512-VNNI", "AVX2", "none"
inline bool int8_linear_runs() { return int8_kernel() != Int8Kernel::kNone; }

// w (out, in) quantized per output channel and laid out in panels.
Int8Weight quantize_weight(const float* w, int64_t in, int64_t out);

// One row's symmetric quantization: q (n values in [-127, 127]) and its scale t (0 for a row
// of zeros).
float quantize_row(const float* x, int64_t n, int8_t* q);

// y = x · wᵀ + b (b may be null) for any rows, as the header says, on int8_kernel().
void linear_int8(const Int8Weight& w, const float* x, const float* b, float* y, int64_t rows);
// The same on a given kernel (tests and benchmarks); refused where the CPU cannot run it.
void linear_int8(Int8Kernel kernel, const Int8Weight& w, const float* x, const float* b, float* y,
                 int64_t rows);

}  // namespace precis::cpu
