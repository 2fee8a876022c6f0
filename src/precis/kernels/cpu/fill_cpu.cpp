#include <cmath>
#include <cstring>

#include "precis/core/rng.h"
#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

void zero(void* x, size_t bytes) {
  if (bytes) std::memset(x, 0, bytes);
}

void fill(float* x, int64_t n, float value) {
  for (int64_t i = 0; i < n; ++i) x[i] = value;
}

namespace {

// Standard normal number `index` of stream `stream` (Box-Muller on two 32-bit draws).
float standard_normal(uint64_t seed, uint64_t stream, uint64_t index) {
  uint32_t a = random_bits(seed, stream, 2 * index), b = random_bits(seed, stream, 2 * index + 1);
  double u1 = (double(a) + 1.0) / 4294967296.0;  // (0, 1]
  double u2 = double(b) / 4294967296.0;
  return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

}  // namespace

void fill_normal(float* x, int64_t first, int64_t n, double std, uint64_t seed, uint64_t stream) {
  for (int64_t i = first; i < n; ++i)
    x[i] = float(std * standard_normal(seed, stream, uint64_t(i)));
}

}  // namespace precis::cpu
