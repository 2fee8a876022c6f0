// The CUDA twin's kernels of T5's relative position bias (kernels/relative_position.h), each
// bucket from relative_position_math.h as on the CPU.
//
// The backward sums the scores' gradient along each plane's diagonals (one distance each) in
// parallel, then each table entry adds its bucket's diagonals: deterministic, the CPU's bits,
// no atomics, and no serial walk over every score (a thread per table entry did that: 384
// threads over 100M scores at T5-base's batch 32 x 512).
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

// The backward in two passes, in the CPU's order (cpu/relative_position_cpu.cpp), so the table
// gets the CPU's bits. Every score (i, j) lies on one diagonal r = j − i + tq − 1 of its plane,
// and a diagonal has one distance, hence one bucket. First the diagonals' sums, one thread a
// (batch, head, diagonal), i ascending, in double (adjacent threads read adjacent keys):
// diagonals (batch, heads, tq + tk − 1).
PRECIS_KERNEL void relative_position_diagonal_sums_kernel(const float* d_scores, double* diagonals,
                                                          int64_t planes, int64_t tq, int64_t tk) {
  const int64_t diagonal_count = tq + tk - 1;
  for (int64_t e = grid_thread(), stride = grid_threads(); e < planes * diagonal_count;
       e += stride) {
    const int64_t plane = e / diagonal_count, r = e - plane * diagonal_count;
    const int64_t shift = r - (tq - 1);  // j − i on this diagonal
    const int64_t first = shift < 0 ? -shift : 0, end = tk - shift < tq ? tk - shift : tq;
    const float* scores = d_scores + plane * tq * tk;
    double sum = 0.0;
    for (int64_t i = first; i < end; ++i) sum += scores[i * tk + i + shift];
    diagonals[e] = sum;
  }
}

// Then each table entry (bucket k, head h), one thread: Σ over its bucket's diagonals (r
// ascending) of Σ over the batch (ascending) of the diagonal sums, in double, added once.
PRECIS_KERNEL void relative_position_bucket_sums_kernel(const double* diagonals,
                                                        RelativePositionBuckets b,
                                                        int64_t first_query, float* dtable,
                                                        int64_t batch, int64_t heads, int64_t tq,
                                                        int64_t tk) {
  const int64_t diagonal_count = tq + tk - 1;
  for (int64_t e = grid_thread(), stride = grid_threads(); e < b.num_buckets * heads; e += stride) {
    const int64_t k = e / heads, h = e - k * heads;
    double sum = 0.0;
    for (int64_t r = 0; r < diagonal_count; ++r) {
      // The distance j − (first_query + i) of diagonal r.
      const int64_t distance = r - (tq - 1) - first_query;
      if (relative_position_math::bucket(distance, b.bidirectional, b.num_buckets,
                                         b.max_distance) != k)
        continue;
      for (int64_t bi = 0; bi < batch; ++bi)
        sum += diagonals[(bi * heads + h) * diagonal_count + r];
    }
    dtable[k * heads + h] += float(sum);
  }
}

}  // namespace precis::cuda
