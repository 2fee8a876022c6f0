// The CUDA twin's kernels of copy.h's row moves, the KV cache's each decoding step: a gather of
// whole rows by an index (beam search's reorder) and an append of one position to every row.
// One launch moves all the rows, a grid-stride loop over (row, word) in words of W bytes (16, 4
// or 1, the largest that divides every row length, offset and address): what one
// cudaMemcpyAsync per row did, without a launch per row.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/grid_stride.cuh"

namespace precis::cuda {

// A W-byte word.
template <int W>
struct alignas(W) Word {
  unsigned char bytes[W];
};

// dst row r (dst_row_words apart) = src row rows[r] (row r where rows is null), src_row_words
// words of each.
template <int W>
PRECIS_KERNEL void gather_rows_kernel(const Word<W>* src, const int32_t* rows, Word<W>* dst, int64_t dst_rows,
                                      int64_t src_row_words, int64_t dst_row_words) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < dst_rows * src_row_words; i += stride) {
    const int64_t r = i / src_row_words, w = i - r * src_row_words;
    const int64_t from = rows ? int64_t(rows[r]) : r;
    dst[r * dst_row_words + w] = src[from * src_row_words + w];
  }
}

// cache row r (cache_row_words apart), from word offset_words on = values row r (row_words).
template <int W>
PRECIS_KERNEL void append_rows_kernel(const Word<W>* values, Word<W>* cache, int64_t rows, int64_t row_words,
                                      int64_t cache_row_words, int64_t offset_words) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < rows * row_words; i += stride) {
    const int64_t r = i / row_words, w = i - r * row_words;
    cache[r * cache_row_words + offset_words + w] = values[i];
  }
}

}  // namespace precis::cuda
