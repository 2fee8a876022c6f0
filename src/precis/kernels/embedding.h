// Token and learned-position embeddings.
// Tables (the fp32 master) and their gradients F32; activations and their gradients F32, or on
// CUDA BF16 or F16.
#pragma once

#include "precis/core/tensor.h"
#include "precis/kernels/token_ids.h"

namespace precis {

// out[b, t] = table[ids[b, t]] * scale. ids (B, T) I32; table (V, d); out (B, T, d).
// An id outside [0, V) is an error naming the id (never a read out of bounds); ids `known` to
// be in range (checked where they were built, CheckedIds) are not checked again.
void embedding_forward(const Tensor& ids, const Tensor& table, float scale, const Tensor& out,
                       CheckedIds known = {});

// x[b, t] += positions[first_row + t]. x (B, T, d); positions (P, d).
void add_position_embeddings(const Tensor& x, const Tensor& positions, int64_t first_row);

// dtable[ids[b, t]] += dout[b, t] * scale. dout (B, T, d). Positions whose id equals
// padding_idx add nothing, as nn.Embedding(padding_idx=...) (padding_idx < 0: none).
// Repeated ids add up in token order, whatever the thread count.
void embedding_backward(const Tensor& dout, const Tensor& ids, float scale, int64_t padding_idx,
                        const Tensor& dtable, CheckedIds known = {});

// dpositions[first_row + t] += Σ_b dx[b, t]. dx (B, T, d); dpositions (P, d).
void position_embeddings_backward(const Tensor& dx, int64_t first_row, const Tensor& dpositions);

}  // namespace precis
