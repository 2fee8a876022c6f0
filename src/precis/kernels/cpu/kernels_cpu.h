// CPU kernels: fp32, OpenBLAS for matrix products, OpenMP elsewhere. Called only from the
// op dispatchers in kernels/*.cpp, which have already checked shapes.
#pragma once

#include <cstdint>

#include "precis/kernels/activation.h"

namespace precis::cpu {

// y(N, out) = x(N, in) · w(out, in)^T (+ b)
void linear_forward(const float* x, const float* w, const float* b, float* y, int64_t n, int64_t in,
                    int64_t out);

void layernorm_forward(const float* x, const float* weight, const float* bias, float* y,
                       float* mean, float* rstd, int64_t rows, int64_t cols, float eps);

void embedding_forward(const int32_t* ids, const float* table, float* out, int64_t n, int64_t dim,
                       int64_t vocab, float scale);
void add_position_embeddings(float* x, const float* positions, int64_t batch, int64_t len,
                             int64_t dim, int64_t first_row);

void activation_forward(Activation kind, const float* x, float* y, int64_t n);

void add(const float* a, const float* b, float* out, int64_t n);

struct AttentionShape {
  int64_t batch, heads, q_len, k_len, head_dim;
  int64_t q_stride, k_stride, v_stride, out_stride;  // elements between consecutive positions
};
void attention_forward(const AttentionShape& s, const float* q, const float* k, const float* v,
                       const int32_t* key_mask, bool causal, int64_t past, float scale,
                       float* out, float* probs);

double cross_entropy_forward(const float* logits, const int32_t* labels, float* losses, int64_t n,
                             int64_t vocab, float label_smoothing, int64_t* counted);

}  // namespace precis::cpu
