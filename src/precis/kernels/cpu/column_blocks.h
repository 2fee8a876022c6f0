// Reductions over rows, split by columns: the parameter gradients of linear (bias), LayerNorm,
// RMSNorm and the embedding sum a (rows, cols) gradient over its rows. Threads take whole
// blocks of columns and each block adds the rows in order 0..rows-1, so the sums, and their
// bits, do not depend on the thread count (splitting the rows would).
#pragma once

#include <algorithm>
#include <cstdint>

namespace precis::cpu {

// Columns per task: 64 floats are four cache lines, and the block's accumulators stay in
// registers or L1.
constexpr int64_t kColumnBlock = 64;

// block(c0, width) for each block [c0, c0 + width) of [0, cols), the blocks across the OpenMP
// threads (static schedule). A block's accumulators are the caller's: kColumnBlock wide.
template <class Block>
void for_column_blocks(int64_t cols, Block&& block) {
  const int64_t blocks = (cols + kColumnBlock - 1) / kColumnBlock;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t c0 = blk * kColumnBlock;
    block(c0, std::min(kColumnBlock, cols - c0));
  }
}

}  // namespace precis::cpu
