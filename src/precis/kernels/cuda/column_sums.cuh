// Column sums over many rows (a parameter's gradient summed over every token of the batch),
// parallel and deterministic, in two launches:
// - the rows in chunks of column_chunk_rows(rows); block (column block, chunk) sums each of its
//   columns over the chunk's rows in row order, in double, into partials (chunks, cols);
// - column_partials_sum_kernel adds each column's partials (a warp a column, in a fixed order)
//   and the result, once rounded to float, onto the output (parameter gradients accumulate).
// The chunking depends on the row count alone, never on the GPU or the grid: a run's bits are the
// same every time. The CPU sums the rows in one pass in double; the two differ in how the double
// additions group, which rounds to the same float unless a sum lies within about 1e-16 of a
// float rounding boundary.
//
// One thread per column over all the rows, which this replaces, ran 4 blocks for 1024 columns on
// a 132-SM GPU: about 1% of its memory bandwidth (BENCHMARKS.md, the GPU cost model).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/grid_stride.cuh"

namespace precis::cuda {

constexpr int kColumnThreads = 256;  // columns per block of the partials' launch

// Rows per chunk: at least 64 (a long enough run of loads per thread), and at most 256 chunks
// (the partials of a 4096-wide layer stay 8 MB).
PRECIS_HOST_DEVICE inline int64_t column_chunk_rows(int64_t rows) {
  const int64_t for_256 = (rows + 255) / 256;
  return for_256 > 64 ? for_256 : 64;
}
PRECIS_HOST_DEVICE inline int64_t column_chunks(int64_t rows) {
  const int64_t per = column_chunk_rows(rows);
  return rows > 0 ? (rows + per - 1) / per : 0;
}

// This thread's column and its block's rows [first, last), for a launch of grid
// (ceil(cols / kColumnThreads), column_chunks(rows)) and blocks of kColumnThreads.
struct ColumnChunk {
  int64_t column, first, last;
};
PRECIS_DEVICE ColumnChunk column_chunk(int64_t rows) {
  const int64_t per = column_chunk_rows(rows), first = int64_t(blockIdx.y) * per;
  return {int64_t(blockIdx.x) * kColumnThreads + threadIdx.x, first, first + per < rows ? first + per : rows};
}

// out[c] += Σ_chunk partials[chunk, c], rounded once. A warp per column (kColumnThreads / 32 a
// block): lane l sums chunks l, l + 32, ... in order, then the lanes' sums meet in a fixed
// butterfly, so the result does not depend on timing. Launch ceil(cols / kColumnsPerSumBlock)
// blocks of kColumnThreads.
constexpr int kColumnsPerSumBlock = kColumnThreads / 32;
PRECIS_KERNEL void column_partials_sum_kernel(const double* partials, int64_t chunks, int64_t cols,
                                              float* out) {
  const int64_t c = int64_t(blockIdx.x) * kColumnsPerSumBlock + threadIdx.x / 32;
  const int lane = int(threadIdx.x % 32);
  double sum = 0.0;
  if (c < cols)
    for (int64_t k = lane; k < chunks; k += 32) sum += partials[k * cols + c];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
  if (c < cols && lane == 0) out[c] += float(sum);
}

}  // namespace precis::cuda
