// The CUDA twins of the token and position embeddings (kernels/embedding.h), launched over
// embedding_kernels.cuh's grid-stride loops. The ids were checked by the op (token_ids.h).
// The activations (out, x, dout, dx) are fp32 or bf16/fp16 (the _16 entry points); the tables
// and their gradients are fp32 either way.
#include "precis/kernels/cuda/embedding_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

template <class T>
void embedding_forward(const int32_t* ids, const float* table, T* out, int64_t n, int64_t dim,
                       int64_t, float scale, Stream s) {
  PRECIS_LAUNCH(embedding_forward_kernel<T>, dim3{grid_stride_blocks(n * dim)}, dim3{kThreads}, s,
                ids, table, out, n, dim, scale);
}

template <class T>
void add_position_embeddings(T* x, const float* positions, int64_t batch, int64_t len, int64_t dim,
                             int64_t first_row, Stream s) {
  PRECIS_LAUNCH(add_position_embeddings_kernel<T>, dim3{grid_stride_blocks(batch * len * dim)},
                dim3{kThreads}, s, x, positions, batch, len, dim, first_row);
}

// A thread per column: the tokens' order is what keeps repeated ids deterministic.
template <class T>
void embedding_backward(const T* dout, const int32_t* ids, float* dtable, int64_t n, int64_t dim,
                        float scale, int64_t padding_idx, Stream s) {
  PRECIS_LAUNCH(embedding_backward_kernel<T>, dim3{grid_stride_blocks(dim)}, dim3{kThreads}, s,
                dout, ids, dtable, n, dim, scale, padding_idx);
}

template <class T>
void position_embeddings_backward(const T* dx, float* dpositions, int64_t batch, int64_t len,
                                  int64_t dim, int64_t first_row, Stream s) {
  PRECIS_LAUNCH(position_embeddings_backward_kernel<T>, dim3{grid_stride_blocks(len * dim)},
                dim3{kThreads}, s, dx, dpositions, batch, len, dim, first_row);
}

void embedding_forward_16(const int32_t* ids, const float* table, uint16_t* out, int64_t n,
                          int64_t dim, int64_t vocab, float scale, DType t, Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    embedding_forward(ids, table, as<T>(out), n, dim, vocab, scale, s);
  });
}

void add_position_embeddings_16(uint16_t* x, const float* positions, int64_t batch, int64_t len,
                                int64_t dim, int64_t first_row, DType t, Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    add_position_embeddings(as<T>(x), positions, batch, len, dim, first_row, s);
  });
}

void embedding_backward_16(const uint16_t* dout, const int32_t* ids, float* dtable, int64_t n,
                           int64_t dim, float scale, int64_t padding_idx, DType t, Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    embedding_backward(as<T>(dout), ids, dtable, n, dim, scale, padding_idx, s);
  });
}

void position_embeddings_backward_16(const uint16_t* dx, float* dpositions, int64_t batch,
                                     int64_t len, int64_t dim, int64_t first_row, DType t,
                                     Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    position_embeddings_backward(as<T>(dx), dpositions, batch, len, dim, first_row, s);
  });
}

}  // namespace

void add_embedding_twins(Kernels& k) {
  k.embedding_forward = embedding_forward<float>;
  k.add_position_embeddings = add_position_embeddings<float>;
  k.embedding_backward = embedding_backward<float>;
  k.position_embeddings_backward = position_embeddings_backward<float>;
  k.embedding_forward_16 = embedding_forward_16;
  k.add_position_embeddings_16 = add_position_embeddings_16;
  k.embedding_backward_16 = embedding_backward_16;
  k.position_embeddings_backward_16 = position_embeddings_backward_16;
}

}  // namespace precis::cuda
