#include "precis/core/dtype.h"
#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

void convert_to_16(const float* src, uint16_t* dst, int64_t n, bool bf16) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16 ? float_to_bf16(src[i]) : float_to_f16(src[i]);
}

void convert_from_16(const uint16_t* src, float* dst, int64_t n, bool bf16) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16 ? bf16_to_float(src[i]) : f16_to_float(src[i]);
}

}  // namespace precis::cpu
