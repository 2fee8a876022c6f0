// The CUDA twins of the token and position embeddings (kernels/embedding.h), launched over
// embedding_kernels.cuh's grid-stride loops. The ids were checked by the op (token_ids.h).
// The activations (out, x, dout, dx) are fp32 or bf16/fp16 (each launcher's T); the tables
// and their gradients are fp32 either way.
#include <algorithm>

#include "precis/kernels/cuda/embedding_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

template <class T>
void embedding_forward(const int32_t* ids, const float* table, T* out, int64_t n, int64_t dim,
                       int64_t, float scale, Stream s) {
  // n rows of the table (fewer where ids repeat; declared as n) gathered into out.
  declare_cost({double(n) * sizeof(int32_t) + double(n * dim) * sizeof(float),
                double(n * dim) * sizeof(T), double(n * dim), 0});
  PRECIS_LAUNCH_OVER(embedding_forward_kernel<T>, n * dim, s, ids, table, out, n, dim, scale);
}

template <class T>
void add_position_embeddings(T* x, const float* positions, int64_t batch, int64_t len, int64_t dim,
                             int64_t first_row, Stream s) {
  declare_cost({double(batch * len * dim) * sizeof(T) + double(len * dim) * sizeof(float),
                double(batch * len * dim) * sizeof(T), double(batch * len * dim), 0});
  PRECIS_LAUNCH_OVER(add_position_embeddings_kernel<T>, batch * len * dim, s, x, positions, batch,
                     len, dim, first_row);
}

// About this many blocks for the token embedding's backward: 8 an SM of a 132-SM GPU.
constexpr int64_t kEmbeddingBackwardBlocks = 1024;

// A thread per column of one class of ids: the tokens' order is what keeps repeated ids
// deterministic. Classes fill the GPU (kEmbeddingBackwardBlocks), at least 16 tokens a class on
// average, so a short batch (and the emulator) runs few blocks.
template <class T>
void embedding_backward(const T* dout, const int32_t* ids, float* dtable, int64_t n, int64_t dim,
                        float scale, int64_t padding_idx, Stream s) {
  const int64_t column_blocks = (dim + kThreads - 1) / kThreads;
  const int64_t classes = std::max<int64_t>(
      1, std::min({kEmbeddingBackwardBlocks / column_blocks, n / 16, int64_t(65535)}));
  // dout and the ids read; n rows of dtable accumulated (fewer where ids repeat). Every thread
  // reads every id and compares its class: n per thread, counted as operations.
  const double threads = double(column_blocks * kThreads * classes);
  declare_cost({double(n * dim) * sizeof(T) + double(n) * sizeof(int32_t) + double(n * dim) * sizeof(float),
                double(n * dim) * sizeof(float), 2.0 * double(n * dim) + double(n) * threads, 0});
  if (column_blocks > 0)
    PRECIS_LAUNCH(embedding_backward_kernel<T>, (dim3{unsigned(column_blocks), unsigned(classes)}),
                  dim3{kThreads}, s, dout, ids, dtable, n, dim, scale, padding_idx);
}

template <class T>
void position_embeddings_backward(const T* dx, float* dpositions, int64_t batch, int64_t len,
                                  int64_t dim, int64_t first_row, Stream s) {
  declare_cost({double(batch * len * dim) * sizeof(T) + double(len * dim) * sizeof(float),
                double(len * dim) * sizeof(float), double(batch * len * dim), 0});
  PRECIS_LAUNCH_OVER(position_embeddings_backward_kernel<T>, len * dim, s, dx, dpositions, batch,
                     len, dim, first_row);
}

}  // namespace

void add_embedding_twins(Kernels& k) {
  k.embedding_forward = PRECIS_BY_DTYPE(embedding_forward);
  k.add_position_embeddings = PRECIS_BY_DTYPE(add_position_embeddings);
  k.embedding_backward = PRECIS_BY_DTYPE(embedding_backward);
  k.position_embeddings_backward = PRECIS_BY_DTYPE(position_embeddings_backward);
}

}  // namespace precis::cuda
