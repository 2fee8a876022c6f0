// The CUDA twins of the token and position embeddings (kernels/embedding.h), launched over
// embedding_kernels.cuh's grid-stride loops. The ids were checked by the op (token_ids.h).
#include "precis/kernels/cuda/embedding_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void embedding_forward(const int32_t* ids, const float* table, float* out, int64_t n, int64_t dim,
                       int64_t, float scale, Stream s) {
  PRECIS_LAUNCH(embedding_forward_kernel, dim3{grid_stride_blocks(n * dim)}, dim3{kThreads}, s, ids,
                table, out, n, dim, scale);
}

void add_position_embeddings(float* x, const float* positions, int64_t batch, int64_t len,
                             int64_t dim, int64_t first_row, Stream s) {
  PRECIS_LAUNCH(add_position_embeddings_kernel, dim3{grid_stride_blocks(batch * len * dim)},
                dim3{kThreads}, s, x, positions, batch, len, dim, first_row);
}

// A thread per column: the tokens' order is what keeps repeated ids deterministic.
void embedding_backward(const float* dout, const int32_t* ids, float* dtable, int64_t n,
                        int64_t dim, float scale, int64_t padding_idx, Stream s) {
  PRECIS_LAUNCH(embedding_backward_kernel, dim3{grid_stride_blocks(dim)}, dim3{kThreads}, s, dout,
                ids, dtable, n, dim, scale, padding_idx);
}

void position_embeddings_backward(const float* dx, float* dpositions, int64_t batch, int64_t len,
                                  int64_t dim, int64_t first_row, Stream s) {
  PRECIS_LAUNCH(position_embeddings_backward_kernel, dim3{grid_stride_blocks(len * dim)},
                dim3{kThreads}, s, dx, dpositions, batch, len, dim, first_row);
}

}  // namespace

void add_embedding_twins(Kernels& k) {
  k.embedding_forward = embedding_forward;
  k.add_position_embeddings = add_position_embeddings;
  k.embedding_backward = embedding_backward;
  k.position_embeddings_backward = position_embeddings_backward;
}

}  // namespace precis::cuda
