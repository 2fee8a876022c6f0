// The linear layer of a decoding step: y (rows, out) = x (rows, in) · wᵀ (+ b) for 8 to 32
// rows (beam search's batch x beams, one token each), where OpenBLAS's sgemm spends its time
// packing the weight it reads once: 90-160 GFLOP/s on this work against 200-250 for a kernel
// that reads each weight row in place and multiplies it into all rows at once (x transposed
// once per call, 32 rows to the registers' lanes).
//
// Each output element is one chain of fused multiply-adds over `in`, in order, from 0, then the
// bias added: the same operations whatever the vector width, so the AVX-512 and AVX2 kernels
// give the same bits, and the thread count (which splits the output columns) cannot change one.
#pragma once

#include <cstdint>

namespace precis::cpu {

constexpr int64_t kFewRowsMin = 8, kFewRowsMax = 32;

enum class FewRowsIsa { kNone, kAvx2, kAvx512 };

// The kernel this build and CPU run: AVX-512 where the build targets it and the CPU has it,
// else AVX2 + FMA where the CPU has them, else none (linear_forward keeps sgemm).
FewRowsIsa few_rows_isa();

// y = x · wᵀ + b (b may be null) with the given kernel; rows in [kFewRowsMin, kFewRowsMax].
void linear_few_rows(FewRowsIsa isa, const float* x, const float* w, const float* b, float* y,
                     int64_t rows, int64_t in, int64_t out);

}  // namespace precis::cpu
