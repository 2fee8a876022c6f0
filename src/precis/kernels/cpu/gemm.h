// The CPU's matrix products: C (m, n) = alpha · op(A) · op(B) + beta · C, row-major, op = the
// matrix or its transpose. In fp32 (gemm_tiled: OpenBLAS sgemm tile by tile) or, under
// MatmulPrecision::kBf16 (kernels/matmul_precision.h), with A and B rounded to bf16 and the
// products summed in fp32, as torch's bf16 autocast and oneDNN's bf16 GEMMs do. Either way the
// bits depend on the shapes alone, never on the thread count.
#pragma once

#include <cstdint>
#include <vector>

namespace precis::cpu {

// Dispatches on the current CPU matmul precision.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// fp32: one single-threaded sgemm per tile of C, the tiles chosen so that the thread count
// cannot change a bit (gemm.cpp says how).
void gemm_tiled(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc);

// How a bf16 product is computed: on AMX tiles (TDPBF16PS: bf16 pairs multiplied and summed
// into fp32), or, on a CPU without AMX-BF16, emulated: A and B rounded to bf16 and multiplied
// by the fp32 path (each product of two bf16 values is exact in fp32; only the order of the
// fp32 sums differs from AMX's).
enum class Bf16Path { kAmx, kEmulated };

// True when this CPU has AMX-BF16 and the kernel granted the process the tile data state.
bool amx_bf16_usable();
// Asks Linux (once) for the tile data state AMX's instructions need; false where it refuses
// (or the CPU has no AMX). Call it only where cpuid shows AMX.
bool amx_tiles_granted();

// The path bf16 products take here: AMX where usable, unless PRECIS_CPU_BF16=emulate asks for
// the emulated path (so that an AMX machine tests both, and a user can compare them).
Bf16Path bf16_path();

void gemm_bf16(Bf16Path path, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
               float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
               float* c, int64_t ldc);

// The AMX kernel's packed operands, laid out so that each tile load reads one contiguous
// kilobyte (16 rows of 64 bytes): A (mpad, kpad) as 16-row strips of 16 x 32 tiles; B
// (kpad, npad) as 16-column strips, each kpad / 2 rows of 16 bf16 pairs (AMX's layout for the
// second operand: row p holds B[2p][j], B[2p + 1][j] side by side).
inline int64_t amx_a_index(int64_t i, int64_t k, int64_t kpad) {
  return ((i / 16) * (kpad / 32) + k / 32) * 512 + (i % 16) * 32 + k % 32;
}
inline int64_t amx_b_index(int64_t k, int64_t j, int64_t kpad) {
  return ((j / 16) * (kpad / 2) + k / 2) * 32 + (j % 16) * 2 + k % 2;
}

// The AMX kernel (gemm_bf16_amx.cpp, the one file built with -mamx-tile -mamx-bf16) over
// operands packed as above, mpad, npad and kpad multiples of 32, zero past m, n and k. Writes
// the first m rows and n columns of C.
void gemm_bf16_amx_packed(const uint16_t* ap, const uint16_t* bp, int64_t mpad, int64_t npad,
                          int64_t kpad, int64_t m, int64_t n, float alpha, float beta, float* c,
                          int64_t ldc, const float* bias = nullptr);

// A linear layer's weight w (out, in) as the AMX kernel's B = wᵀ, packed once where the
// weights hold still (kernels/constant_weights.h) instead of on every call.
struct Bf16Weight {
  int64_t in = 0, out = 0, kpad = 0, npad = 0;
  std::vector<uint16_t> packed;
};
Bf16Weight pack_bf16_weight(const float* w, int64_t in, int64_t out);

// y (rows, out) = x · wᵀ (+ b) on AMX tiles: the bits of gemm_bf16(kAmx, false, true, ...)
// onto the bias rows, the weight's packing done before.
void linear_bf16_packed(const Bf16Weight& w, const float* x, const float* b, int64_t rows,
                        float* y);

}  // namespace precis::cpu
