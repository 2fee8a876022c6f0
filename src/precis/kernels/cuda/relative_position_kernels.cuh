// The CUDA twin's kernels of T5's relative position bias (kernels/relative_position.h), each
// bucket from relative_position_math.h as on the CPU.
//
// The backward gives each table entry (bucket, head) one thread, which adds the scores of its
// bucket in the CPU's order (batch, query, key) in double: the CPU's sums bit for bit, with no
// two threads writing one entry. A bucket holds a run of distances (the bucket grows with the
// distance on each side), so the thread first finds the run's ends, then visits only the keys
// whose distance lies between them, checking each one's bucket anyway.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/grid_stride.cuh"
#include "precis/kernels/relative_position.h"
#include "precis/kernels/relative_position_math.h"

namespace precis::cuda {

// bias (heads, tq, tk)[h, i, j] = table (num_buckets, heads)[bucket(j − (first_query + i)), h].
PRECIS_KERNEL void relative_position_bias_kernel(const float* table, RelativePositionBuckets b,
                                                 int64_t first_query, float* bias, int64_t heads,
                                                 int64_t tq, int64_t tk) {
  for (int64_t e = grid_thread(), stride = grid_threads(); e < heads * tq * tk; e += stride) {
    const int64_t h = e / (tq * tk), ij = e - h * tq * tk, i = ij / tk, j = ij - i * tk;
    const int64_t bucket = relative_position_math::bucket(j - (first_query + i), b.bidirectional,
                                                          b.num_buckets, b.max_distance);
    bias[e] = table[bucket * heads + h];
  }
}

// dtable[k, h] += Σ_(b, i, j) d_scores (batch, heads, tq, tk)[b, h, i, j] over bucket(i, j) = k.
PRECIS_KERNEL void relative_position_bias_backward_kernel(const float* d_scores,
                                                          RelativePositionBuckets b,
                                                          int64_t first_query, float* dtable,
                                                          int64_t batch, int64_t heads, int64_t tq,
                                                          int64_t tk) {
  // The distances j − (first_query + i) the scores hold.
  const int64_t nearest = -(first_query + tq - 1), farthest = tk - 1 - first_query;
  for (int64_t e = grid_thread(), stride = grid_threads(); e < b.num_buckets * heads; e += stride) {
    const int64_t k = e / heads, h = e - k * heads;
    auto in_bucket = [&](int64_t distance) {
      return relative_position_math::bucket(distance, b.bidirectional, b.num_buckets,
                                            b.max_distance) == k;
    };
    int64_t low = farthest + 1, high = nearest - 1;  // empty until a distance is found
    for (int64_t r = nearest; r <= farthest; ++r)
      if (in_bucket(r)) {
        low = r < low ? r : low;
        high = r;
      }
    double sum = 0.0;
    for (int64_t bi = 0; bi < batch; ++bi) {
      const float* plane = d_scores + (bi * heads + h) * tq * tk;
      for (int64_t i = 0; i < tq; ++i) {
        const int64_t query = first_query + i;
        const int64_t first_key = low + query > 0 ? low + query : 0;
        const int64_t last_key = high + query < tk - 1 ? high + query : tk - 1;
        for (int64_t j = first_key; j <= last_key; ++j)
          if (in_bucket(j - query)) sum += plane[i * tk + j];
      }
    }
    dtable[k * heads + h] += float(sum);
  }
}

}  // namespace precis::cuda
