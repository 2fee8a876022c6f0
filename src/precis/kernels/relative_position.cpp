#include "precis/kernels/relative_position.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace precis {

int64_t relative_position_bucket(int64_t relative_position, const RelativePositionBuckets& b) {
  int64_t buckets = b.num_buckets, offset = 0, n;
  if (b.bidirectional) {
    buckets /= 2;
    if (relative_position > 0) offset = buckets;
    n = relative_position < 0 ? -relative_position : relative_position;
  } else {
    n = std::max<int64_t>(-relative_position, 0);  // future keys: 0 (masked anyway)
  }
  const int64_t max_exact = buckets / 2;
  if (n < max_exact) return offset + n;
  // torch: log(n.float() / max_exact) / math.log(max_distance / max_exact) * (buckets -
  // max_exact), each step in float32, then .to(long) (toward zero).
  float ratio = std::log(float(n) / float(max_exact));
  ratio = ratio / float(std::log(double(b.max_distance) / double(max_exact)));
  ratio = ratio * float(buckets - max_exact);
  int64_t large = max_exact + int64_t(ratio);
  return offset + std::min(large, buckets - 1);
}

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

void relative_position_bias_forward(const Tensor& table, const RelativePositionBuckets& b,
                                    int64_t first_query, const Tensor& bias) {
  check(table.rank() == 2 && table.size(0) == b.num_buckets && bias.rank() == 3 &&
            bias.size(0) == table.size(1),
        "relative position bias: table " + table.describe() + " (expected [" +
            std::to_string(b.num_buckets) + ", heads]), bias " + bias.describe());
  const int64_t H = bias.size(0), tq = bias.size(1), tk = bias.size(2);
  const std::vector<int32_t> grid = bucket_grid(b, first_query, tq, tk);
  const float* t = table.f32();
  float* out = bias.f32();
  for (int64_t h = 0; h < H; ++h)
    for (int64_t ij = 0; ij < tq * tk; ++ij) out[h * tq * tk + ij] = t[grid[size_t(ij)] * H + h];
}

void relative_position_bias_backward(const Tensor& d_scores, const RelativePositionBuckets& b,
                                     int64_t first_query, const Tensor& dtable) {
  check(d_scores.rank() == 4 && dtable.rank() == 2 && dtable.size(0) == b.num_buckets &&
            dtable.size(1) == d_scores.size(1),
        "relative position bias backward: d_scores " + d_scores.describe() + ", dtable " +
            dtable.describe());
  const int64_t B = d_scores.size(0), H = d_scores.size(1), tq = d_scores.size(2),
                tk = d_scores.size(3);
  const std::vector<int32_t> grid = bucket_grid(b, first_query, tq, tk);
  const float* ds = d_scores.f32();
  float* dt = dtable.f32();
  // One head per task: a head writes only its own column of the table.
#pragma omp parallel for schedule(static)
  for (int64_t h = 0; h < H; ++h) {
    std::vector<double> sums(size_t(b.num_buckets), 0.0);
    for (int64_t bi = 0; bi < B; ++bi) {
      const float* plane = ds + (bi * H + h) * tq * tk;
      for (int64_t ij = 0; ij < tq * tk; ++ij) sums[size_t(grid[size_t(ij)])] += plane[ij];
    }
    for (int64_t k = 0; k < b.num_buckets; ++k) dt[k * H + h] += float(sums[size_t(k)]);
  }
}

}  // namespace precis
