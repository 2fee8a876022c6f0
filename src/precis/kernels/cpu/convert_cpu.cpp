#include "precis/kernels/convert_math.h"
#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

// The conversions are convert_math.h's, shared with the CUDA twin.
void convert_to_16(const float* src, uint16_t* dst, int64_t n, bool bf16) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    dst[i] = bf16 ? convert_math::to_bf16(src[i]) : convert_math::to_f16(src[i]);
}

void convert_from_16(const uint16_t* src, float* dst, int64_t n, bool bf16) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    dst[i] = bf16 ? convert_math::from_bf16(src[i]) : convert_math::from_f16(src[i]);
}

}  // namespace precis::cpu
