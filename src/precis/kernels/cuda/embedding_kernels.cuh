// The CUDA twin's kernels of the embeddings (kernels/embedding.h). The forwards give each
// output element its own thread (grid-stride). The backwards never let two threads add into one
// table entry: a thread owns one column of the table (of one class of ids in the token
// embedding's) and walks the tokens (or the batch) in order, as the CPU does per column, so
// repeated ids add up in token order and the sums are the CPU's bit for bit, for any grid.
// T is the activations' element type (element.cuh): fp32, or bf16/fp16 loaded to float and
// each result rounded once. The tables and their gradients are fp32 (master weights).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/grid_stride.cuh"

namespace precis::cuda {

// out (n, dim) = table[ids] · scale.
template <class T>
PRECIS_KERNEL void embedding_forward_kernel(const int32_t* ids, const float* table, T* out,
                                            int64_t n, int64_t dim, float scale) {
  for (int64_t e = grid_thread(), stride = grid_threads(); e < n * dim; e += stride) {
    const int64_t token = e / dim, c = e - token * dim;
    store(out[e], table[int64_t(ids[token]) * dim + c] * scale);
  }
}

// x (batch, len, dim) += positions[first_row + t].
template <class T>
PRECIS_KERNEL void add_position_embeddings_kernel(T* x, const float* positions, int64_t batch,
                                                  int64_t len, int64_t dim, int64_t first_row) {
  for (int64_t e = grid_thread(), stride = grid_threads(); e < batch * len * dim; e += stride) {
    const int64_t row = e / dim, c = e - row * dim, t = row % len;
    store(x[e], load(x[e]) + positions[(first_row + t) * dim + c]);
  }
}

// dtable (vocab, dim) += dout[i] · scale at row ids[i], padding_idx rows aside. The grid's y
// splits the ids into classes (id mod gridDim.y): a thread owns a column of its class's rows and
// walks every token in order, adding those of its class. A d_model of 1024 is only 4 blocks of
// columns; the classes give the GPU its hundreds of blocks, and each table entry still has one
// thread adding its tokens in order.
template <class T>
PRECIS_KERNEL void embedding_backward_kernel(const T* dout, const int32_t* ids, float* dtable,
                                             int64_t n, int64_t dim, float scale,
                                             int64_t padding_idx) {
  const int64_t classes = gridDim.y, mine = blockIdx.y;
  for (int64_t c = grid_thread(), stride = grid_threads(); c < dim; c += stride)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = ids[i];
      if (id == padding_idx || id % classes != mine) continue;  // nn.Embedding(padding_idx): no gradient
      dtable[id * dim + c] += load(dout[i * dim + c]) * scale;
    }
}

// dpositions[first_row + t] += Σ_b dx[b, t]: a thread per (t, column), the batch in order.
template <class T>
PRECIS_KERNEL void position_embeddings_backward_kernel(const T* dx, float* dpositions,
                                                       int64_t batch, int64_t len, int64_t dim,
                                                       int64_t first_row) {
  for (int64_t e = grid_thread(), stride = grid_threads(); e < len * dim; e += stride) {
    const int64_t t = e / dim, c = e - t * dim;
    float sum = dpositions[(first_row + t) * dim + c];
    for (int64_t b = 0; b < batch; ++b) sum += load(dx[(b * len + t) * dim + c]);
    dpositions[(first_row + t) * dim + c] = sum;
  }
}

}  // namespace precis::cuda
