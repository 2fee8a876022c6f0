// Token and learned-position embeddings.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

// out[b, t] = table[ids[b, t]] * scale. ids (B, T) I32; table (V, d); out (B, T, d).
// An id outside [0, V) is an error naming the id (never a read out of bounds).
void embedding_forward(const Tensor& ids, const Tensor& table, float scale, const Tensor& out);

// x[b, t] += positions[first_row + t]. x (B, T, d); positions (P, d).
void add_position_embeddings(const Tensor& x, const Tensor& positions, int64_t first_row);

}  // namespace precis
