// The linear layer of a decoding step: y (rows, out) = x (rows, in) · wᵀ (+ b) for 8 to 32
// rows (beam search's batch x beams, one token each), where OpenBLAS's sgemm spends its time
// packing the weight it reads once: 90-160 GFLOP/s on this work against 200-250 for a kernel
// that reads each weight row in place and multiplies it into all rows at once.
//
// Two forms, one per ISA:
// - AVX-512: each output element is one chain of fused multiply-adds over `in`, in order, from
//   0, then the bias added (x transposed once per call, 32 rows to a register's lanes, 12
//   weight rows broadcast against them).
// - AVX2 (with FMA): each output element is 8 chains over `in` (lane l takes the terms c = l
//   mod 8), summed in one fixed tree, then the bias added (3 weight rows against 4 rows of x,
//   both read as they lie). The broadcast form needs 32 registers for its reuse: with AVX2's 16
//   it ran at 0.7-0.9x OpenBLAS's Haswell sgemm; this form at 1.1-1.5x on bart-base's products.
// Each element is one thread's: the thread count (which splits the output columns) cannot
// change a bit.
#pragma once

#include <cstdint>

namespace precis::cpu {

constexpr int64_t kFewRowsMin = 8, kFewRowsMax = 32;

enum class FewRowsKernel { kNone, kAvx512, kAvx2 };

// The form this build and CPU run (AVX-512 where both have it); kNone: sgemm runs.
FewRowsKernel few_rows_kernel();

// Whether this build and CPU can run `kernel` (tests run the AVX2 form on AVX-512 machines too).
bool few_rows_kernel_runs(FewRowsKernel kernel);

// y = x · wᵀ + b (b may be null); rows in [kFewRowsMin, kFewRowsMax].
void linear_few_rows(FewRowsKernel kernel, const float* x, const float* w, const float* b, float* y,
                     int64_t rows, int64_t in, int64_t out);

}  // namespace precis::cpu
