// Layer functions shared by BART's encoder, decoder and cross-attention (and later T5):
// each takes its parameters, its inputs and the activation struct it fills for the backward.
#pragma once

#include "precis/core/arena.h"
#include "precis/kernels/activation.h"
#include "precis/kernels/attention.h"
#include "precis/model/bart_params.h"

namespace precis {

struct AttentionActivations {
  Tensor q, k, v;  // (B, Tq, d), (B, Tk, d), (B, Tk, d): projections, heads packed
  Tensor probs;    // (B, H, Tq, Tk) softmax, for the backward (undefined in inference)
  Tensor context;  // (B, Tq, d) heads concatenated: input of out_proj
  Tensor out;      // (B, Tq, d) out_proj output
};

struct LayerNormActivations {
  Tensor mean, rstd;  // (B*T)
  Tensor out;         // (B, T, d)
};

struct FeedForwardActivations {
  Tensor fc1;  // (B, T, ffn) before the activation
  Tensor act;  // (B, T, ffn) after it
  Tensor fc2;  // (B, T, d)
};

// Allocation of one block's activations from an arena (measuring or real).
AttentionActivations allocate_attention(Arena& arena, int64_t batch, int64_t q_len, int64_t k_len,
                                        int64_t d, int64_t heads, bool keep_probs);
LayerNormActivations allocate_layer_norm(Arena& arena, int64_t batch, int64_t len, int64_t d);
FeedForwardActivations allocate_feed_forward(Arena& arena, int64_t batch, int64_t len, int64_t d,
                                             int64_t ffn);

// BART attention: q = (x·Wq + bq) * head_dim^-0.5, k/v from `kv` (x itself for
// self-attention, the encoder output for cross-attention).
void attention_block_forward(const AttentionParams& p, const Tensor& x, const Tensor& kv,
                             int64_t heads, const AttentionMask& mask, AttentionActivations& a);

void layer_norm_forward(const LayerNormParams& p, const Tensor& x, float eps,
                        LayerNormActivations& a);

// fc2(act(fc1(x))).
void feed_forward_forward(const FeedForwardParams& p, Activation act, const Tensor& x,
                          FeedForwardActivations& a);

}  // namespace precis
