#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

void add(const float* a, const float* b, float* out, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

}  // namespace precis::cpu
