#include <algorithm>
#include <vector>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

namespace {
// Elements per partial sum. The block boundaries depend on n alone; the partial sums are
// added in block order, so the thread count cannot change the rounding.
constexpr int64_t kBlock = 1 << 16;
constexpr int kSquareSumLanes = 8;  // independent accumulators inside a block (vectorisable)
}  // namespace

double sum_of_squares(const float* x, int64_t n) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(size_t(blocks), 0.0);
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const float* xb = x + blk * kBlock;
    int64_t m = std::min(kBlock, n - blk * kBlock);
    double lane[kSquareSumLanes] = {};
    int64_t i = 0;
    for (; i + kSquareSumLanes <= m; i += kSquareSumLanes)
      for (int l = 0; l < kSquareSumLanes; ++l) lane[l] += double(xb[i + l]) * double(xb[i + l]);
    for (; i < m; ++i) lane[0] += double(xb[i]) * double(xb[i]);
    double s = 0.0;
    for (int l = 0; l < kSquareSumLanes; ++l) s += lane[l];
    partial[size_t(blk)] = s;
  }
  double total = 0.0;
  for (double s : partial) total += s;
  return total;
}

}  // namespace precis::cpu
