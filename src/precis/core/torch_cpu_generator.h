// torch's default CPU generator (at::CPUGeneratorImpl), as far as sampling draws from it:
// what transformers' generate(do_sample=True) draws on the CPU after torch.manual_seed(seed)
// (transformers.set_seed does that). Reproducing it is what makes precis's sampled ids equal
// HF's for the same seed.
//
// The engine is the standard 32-bit Mersenne Twister seeded with init_genrand of the seed's
// low 32 bits (torch's at::mt19937 is that generator; std::mt19937 is too). On top of it:
//   random64()     two engine outputs, the first in the high half
//                  (CPUGeneratorImpl::random64, detail::make64BitsFrom32Bits(hi, lo))
//   uniform()      random64's low 53 bits * 2^-53, in [0, 1)
//                  (uniform_real_distribution<double>, transformation::uniform_real)
//   exponential()  Exp(1) as a double: -log1p(-u) (torch 2.x), -log(1 - u) (torch 1.13): the
//                  same number, as 1 - u is exact for u a multiple of 2^-53
//                  (exponential_distribution<double>, transformation::exponential). Tensor.
//                  exponential_ on the CPU draws one per element in row-major order, computed
//                  in double whatever the tensor's dtype, then cast to it.
// CUDA's generator is another one (Philox): this is the CPU stream only.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace precis {

class TorchCpuGenerator {
 public:
  // torch.manual_seed(seed).
  explicit TorchCpuGenerator(uint64_t seed) : engine_(uint32_t(seed)), seed_(seed) {}

  uint64_t seed() const { return seed_; }
  uint32_t random() { return uint32_t(engine_()); }

  uint64_t random64() {
    // Two statements: the order of the two draws is the point.
    const uint64_t high = random();
    const uint64_t low = random();
    return (high << 32) | low;
  }

  double uniform() {
    constexpr uint64_t kMantissa = (uint64_t(1) << 53) - 1;  // double's 53 digits
    return double(random64() & kMantissa) * 0x1.0p-53;
  }

  // Exp(1) of a u that uniform() gave (split from exponential() so a caller can look at u).
  static double exponential_of(double u) { return -std::log1p(-u); }
  double exponential() { return exponential_of(uniform()); }

 private:
  std::mt19937 engine_;
  uint64_t seed_;
};

}  // namespace precis
