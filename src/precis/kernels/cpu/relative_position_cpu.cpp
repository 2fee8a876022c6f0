#include <algorithm>
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
  // Each plane's diagonal r = j − i + tq − 1 holds one distance, hence one bucket: the sums
  // along the diagonals (i ascending, in double), then per table entry its bucket's diagonals
  // (r ascending) over the batch (ascending). The CUDA twin adds in this order too
  // (cuda/relative_position_kernels.cuh), so both give these bits.
  const int64_t diagonal_count = tq + tk - 1;
  std::vector<int32_t> bucket_of(size_t(std::max<int64_t>(diagonal_count, 0)));
  for (int64_t r = 0; r < diagonal_count; ++r)
    bucket_of[size_t(r)] = int32_t(relative_position_bucket(r - (tq - 1) - first_query, b));
    // One head per task: a head writes only its own column of the table.
#pragma omp parallel for schedule(static)
  for (int64_t h = 0; h < heads; ++h) {
    std::vector<double> diagonals(size_t(batch * diagonal_count), 0.0);
    for (int64_t bi = 0; bi < batch; ++bi) {
      const float* plane = d_scores + (bi * heads + h) * tq * tk;
      double* sums = diagonals.data() + bi * diagonal_count + (tq - 1);
      // Row by row: each diagonal still gets its rows in order.
      for (int64_t i = 0; i < tq; ++i)
        for (int64_t j = 0; j < tk; ++j) sums[j - i] += plane[i * tk + j];
    }
    std::vector<double> entries(size_t(b.num_buckets), 0.0);
    for (int64_t r = 0; r < diagonal_count; ++r)
      for (int64_t bi = 0; bi < batch; ++bi)
        entries[size_t(bucket_of[size_t(r)])] += diagonals[size_t(bi * diagonal_count + r)];
    for (int64_t k = 0; k < b.num_buckets; ++k) dtable[k * heads + h] += float(entries[size_t(k)]);
  }
}

}  // namespace precis::cpu
