#include <algorithm>

#include "precis/core/rng.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/dropout_math.h"

namespace precis::cpu {

namespace {
// Elements per task of the parallel dropout, a multiple of 4 so each Philox block (4 words)
// is drawn once.
constexpr int64_t kDropoutChunk = 4096;
}  // namespace

void dropout_range(const float* x, float* y, int64_t n, uint64_t first, uint64_t threshold,
                   float scale, uint64_t seed, uint64_t stream) {
  uint32_t bits[kDropoutChunk];
  for (int64_t done = 0; done < n; done += kDropoutChunk) {
    int64_t m = std::min(kDropoutChunk, n - done);
    random_bits(seed, stream, first + uint64_t(done), m, bits);
#pragma omp simd
    for (int64_t i = 0; i < m; ++i)
      y[done + i] = dropout_math::apply(x[done + i], bits[i], threshold, scale);
  }
}

void dropout(const float* x, float* y, int64_t n, uint64_t threshold, float scale, uint64_t seed,
             uint64_t stream, uint64_t first) {
  const int64_t chunks = (n + kDropoutChunk - 1) / kDropoutChunk;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * kDropoutChunk;
    dropout_range(x + begin, y + begin, std::min(kDropoutChunk, n - begin), first + uint64_t(begin),
                  threshold, scale, seed, stream);
  }
}

}  // namespace precis::cpu
