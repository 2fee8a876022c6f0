// One warp's tensor-core product: mma.sync m16n8k16, D (16x8, fp32) = A (16x16) · B (16x8) + C,
// A and B of bf16 or fp16, with the register layouts the PTX ISA documents for it ("Matrix
// fragments for mma.m16n8k16 with floating point type"). The tensor-core attention kernels hold
// their tiles in these registers and must know which lane has which element (a row's softmax
// runs over the four lanes that hold it), so the layout is the contract, and the kernel emulator
// of the tests implements the instruction with exactly this layout (tests/emulator/
// emulator.h, warp_mma_m16n8k16): a kernel that misreads it gives wrong numbers there, as it
// would on a GPU. tests/gpu/kernels_on_device.cu checks the layout on a GPU against the host.
//
// Lane l of the warp: group g = l / 4, thread t = l % 4.
// - A, 4 registers of two 16-bit values (the lower half the first): a[0] = A[g][2t, 2t+1],
//   a[1] = A[g+8][2t, 2t+1], a[2] = A[g][2t+8, 2t+9], a[3] = A[g+8][2t+8, 2t+9].
// - B, 2 registers: b[0] = B[2t, 2t+1][g], b[1] = B[2t+8, 2t+9][g] (B column g, two rows each).
// - C and D, 4 floats: [0] = (g, 2t), [1] = (g, 2t+1), [2] = (g+8, 2t), [3] = (g+8, 2t+1).
// The products are exact in fp32 and summed in fp32 (the GPU's order of those sums is its own:
// results agree to fp32 rounding, not bit for bit).
#pragma once

#include <cstdint>
#include <type_traits>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/element.cuh"

namespace precis::cuda {

// Lane l's place in the fragments: its group (rows g and g + 8) and its thread in the group.
struct MmaLane {
  int group, thread;
};
PRECIS_HOST_DEVICE inline MmaLane mma_lane(int lane) { return {lane / 4, lane % 4}; }

// Two 16-bit values in one register, `low` in the lower half.
PRECIS_HOST_DEVICE inline uint32_t pack_halves(uint16_t low, uint16_t high) {
  return uint32_t(low) | (uint32_t(high) << 16);
}

// The row and column of C/D element e (0..3) of lane l.
PRECIS_HOST_DEVICE inline int mma_c_row(int lane, int e) { return lane / 4 + (e >= 2 ? 8 : 0); }
PRECIS_HOST_DEVICE inline int mma_c_col(int lane, int e) { return 2 * (lane % 4) + (e & 1); }

// A's register r (0..3) of lane l holds A[mma_a_row(l, r)][mma_a_col(l, r) + 0, 1].
PRECIS_HOST_DEVICE inline int mma_a_row(int lane, int r) { return lane / 4 + ((r & 1) ? 8 : 0); }
PRECIS_HOST_DEVICE inline int mma_a_col(int lane, int r) { return 2 * (lane % 4) + (r >= 2 ? 8 : 0); }
// B's register r (0..1) of lane l holds B[mma_b_row(l, r) + 0, 1][lane / 4].
PRECIS_HOST_DEVICE inline int mma_b_row(int lane, int r) { return 2 * (lane % 4) + (r ? 8 : 0); }

#if defined(__CUDACC__)
// bf16 when bf16, else fp16 (T of element.cuh).
template <class T>
static __device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                                                    const float (&c)[4]) {
#if __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, bf16>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
#else
  // sm_80 and sm_90 are what precis builds for; older devices have no bf16 mma.
  __trap();
#endif
}
#else
// The kernel emulator's (tests/emulator/emulator.cpp): the whole warp's registers
// exchanged, each lane's D computed from the documented layout.
template <class T>
inline void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) {
  ::precis::cuda_emulation::warp_mma_m16n8k16(d, a, b, c, std::is_same_v<T, bf16>);
}
#endif

}  // namespace precis::cuda
