#include <cmath>
#include <cstring>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/fill_math.h"

namespace precis::cpu {

void zero(void* x, size_t bytes) {
  if (bytes) std::memset(x, 0, bytes);
}

void fill(float* x, int64_t n, float value) {
  for (int64_t i = 0; i < n; ++i) x[i] = value;
}

void fill_normal(float* x, int64_t first, int64_t n, double std, uint64_t seed, uint64_t stream) {
  for (int64_t i = first; i < n; ++i)
    x[i] = fill_math::normal_draw(std, seed, stream, uint64_t(i));
}

}  // namespace precis::cpu
