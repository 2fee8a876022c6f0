// The linear layer of a decoding step: y (rows, out) = x (rows, in) · wᵀ (+ b) for 8 to 32
// rows (beam search's batch x beams, one token each), where OpenBLAS's sgemm spends its time
// packing the weight it reads once: 90-160 GFLOP/s on this work against 200-250 for a kernel
// that reads each weight row in place and multiplies it into all rows at once (x transposed
// once per call, 32 rows to the registers' lanes).
//
// Each output element is one chain of fused multiply-adds over `in`, in order, from 0, then the
// bias added, by one thread: the thread count (which splits the output columns) cannot change a
// bit. AVX-512 only: an AVX2 form of it (3 weight rows by 32 rows, or 6 by 16, in 16 registers)
// ran at 0.7-0.9x OpenBLAS's Haswell sgemm on the same products, so AVX2 builds keep sgemm.
#pragma once

#include <cstdint>

namespace precis::cpu {

constexpr int64_t kFewRowsMin = 8, kFewRowsMax = 32;

// Whether this build targets AVX-512 and the CPU has it.
bool few_rows_kernel_usable();

// y = x · wᵀ + b (b may be null); rows in [kFewRowsMin, kFewRowsMax].
void linear_few_rows(const float* x, const float* w, const float* b, float* y, int64_t rows,
                     int64_t in, int64_t out);

}  // namespace precis::cpu
