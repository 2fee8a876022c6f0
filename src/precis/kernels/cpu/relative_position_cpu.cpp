#include <vector>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

namespace {

// bucket per (i, j), shared by every head.
std::vector<int32_t> bucket_grid(const RelativePositionBuckets& b, int64_t first_query, int64_t tq,
                                 int64_t tk) {
  std::vector<int32_t> grid(size_t(tq * tk));
  for (int64_t i = 0; i < tq; ++i)
    for (int64_t j = 0; j < tk; ++j)
      grid[size_t(i * tk + j)] = int32_t(relative_position_bucket(j - (first_query + i), b));
  return grid;
}

}  // namespace

void relative_position_bias_forward(const float* table, const RelativePositionBuckets& b,
                                    int64_t first_query, float* bias, int64_t heads, int64_t tq,
                                    int64_t tk) {
  const std::vector<int32_t> grid = bucket_grid(b, first_query, tq, tk);
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t ij = 0; ij < tq * tk; ++ij)
      bias[h * tq * tk + ij] = table[grid[size_t(ij)] * heads + h];
}

void relative_position_bias_backward(const float* d_scores, const RelativePositionBuckets& b,
                                     int64_t first_query, float* dtable, int64_t batch,
                                     int64_t heads, int64_t tq, int64_t tk) {
  const std::vector<int32_t> grid = bucket_grid(b, first_query, tq, tk);
  // One head per task: a head writes only its own column of the table.
#pragma omp parallel for schedule(static)
  for (int64_t h = 0; h < heads; ++h) {
    std::vector<double> sums(size_t(b.num_buckets), 0.0);
    for (int64_t bi = 0; bi < batch; ++bi) {
      const float* plane = d_scores + (bi * heads + h) * tq * tk;
      for (int64_t ij = 0; ij < tq * tk; ++ij) sums[size_t(grid[size_t(ij)])] += plane[ij];
    }
    for (int64_t k = 0; k < b.num_buckets; ++k) dtable[k * heads + h] += float(sums[size_t(k)]);
  }
}

}  // namespace precis::cpu
