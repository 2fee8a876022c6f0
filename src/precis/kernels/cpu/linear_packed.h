// The decoding step's linear layer against a weight packed once (constant_weights.h): y (rows,
// out) = x (rows, in) · wᵀ (+ b), with w laid out in panels of 32 output columns, column c of a
// panel one aligned run of 32 floats. A block of up to 12 rows of x meets a panel: each x
// element broadcast against the panel's two registers, 24 accumulators, each output element
// one chain of fused multiply-adds over `in` in order from 0, then the bias added as the row's
// 32 outputs are stored, so the bits are linear_few_rows.h's AVX-512 form's, and sgemm's with
// its beta = 1 onto bias rows (one chain per element at these depths). Panels are split among
// the threads; within a panel the row blocks run in turn, so the panel is read from memory once
// and stays in cache. AVX-512 builds and CPUs only; elsewhere the callers keep their paths.
#pragma once

#include <cstdint>
#include <memory>

namespace precis::cpu {

constexpr int64_t kPackedPanel = 32;  // output columns per panel
// The most rows linear_forward sends here (bench/linear_rows_bench.cpp: at 1,024 rows of
// bart-base's 768 x 768 sgemm was ahead, at 256 the packed form by 1.07-1.38x).
constexpr int64_t kPackedRowsMax = 512;

struct PackedWeight {
  int64_t in = 0, out = 0;
  std::unique_ptr<float, void (*)(void*)> panels{nullptr,
                                                 nullptr};  // (panels, in, 32), 64-byte aligned
};

// Whether this build and CPU run the packed kernel.
bool packed_linear_runs();

// w (out, in) in panels, zero past `out`.
PackedWeight pack_weight(const float* w, int64_t in, int64_t out);

// y = x · wᵀ + b (b may be null) for any rows.
void linear_packed(const PackedWeight& w, const float* x, const float* b, float* y, int64_t rows);

}  // namespace precis::cpu
