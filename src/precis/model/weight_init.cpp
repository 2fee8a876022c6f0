#include "precis/model/weight_init.h"

#include <cmath>

#include "precis/core/rng.h"

namespace precis {

namespace {

// Standard normal number `index` of stream `stream` (Box-Muller on two 32-bit draws).
float normal(uint64_t seed, uint64_t stream, uint64_t index) {
  uint32_t a = random_bits(seed, stream, 2 * index), b = random_bits(seed, stream, 2 * index + 1);
  double u1 = (double(a) + 1.0) / 4294967296.0;  // (0, 1]
  double u2 = double(b) / 4294967296.0;
  return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

}  // namespace

void fill_normal(const Tensor& t, double std, uint64_t seed, uint64_t stream, int64_t first) {
  float* p = t.f32();
  for (int64_t i = first; i < t.numel(); ++i) p[i] = float(std * normal(seed, stream, uint64_t(i)));
}

void fill_constant(const Tensor& t, float value) {
  float* p = t.f32();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = value;
}

}  // namespace precis
