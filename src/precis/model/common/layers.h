// Layer functions shared by BART's encoder, decoder and cross-attention (and later T5):
// each takes its parameters, its inputs and the activation struct it fills; the backward
// beside it takes the same struct. Dropout is applied in place where the backward does not
// need the value before it, and recomputed from the counter-based RNG in the backward.
#pragma once

#include "precis/core/arena.h"
#include "precis/kernels/activation.h"
#include "precis/kernels/attention.h"
#include "precis/kernels/dropout.h"
#include "precis/model/common/parameters.h"

namespace precis {

struct AttentionActivations {
  Tensor q, k, v;  // (B, Tq, d), (B, Tk, d), (B, Tk, d): projections, heads packed
  // What the backward needs of the softmax: the probabilities or the rows' log-sum-exp, as the
  // device chooses (attention_saves_probs); undefined in inference.
  AttentionSaved saved;
  AttentionMask mask;  // the forward's, for a backward that recomputes the softmax
  Tensor context;  // (B, Tq, d) heads concatenated: input of out_proj
  Tensor out;      // (B, Tq, d) out_proj output, after residual dropout when training
};

struct LayerNormActivations {
  Tensor mean, rstd;  // (B*T)
  Tensor out;         // (B, T, d)
};

struct FeedForwardActivations {
  Tensor fc1;  // (B, T, ffn) before the activation
  Tensor act;  // (B, T, ffn) after it, and after activation dropout when training
  Tensor fc2;  // (B, T, d), after residual dropout when training
};

// Dropout of one block: attention probabilities, activation, residual branch.
struct BlockDropout {
  DropoutSpec attention, activation, residual;
};

// Gradient scratch for one attention block, sized for the largest use.
struct AttentionGradScratch {
  Tensor dq, dk, dv;  // (B, Tq|Tk, d)
  Tensor dcontext;    // (B, Tq, d)
  Tensor tmp;         // (B, max(Tq, Tk), d)
};

// training: keep what the backward needs (AttentionActivations::saved) on the current device.
AttentionActivations allocate_attention(Arena& arena, int64_t batch, int64_t q_len, int64_t k_len,
                                        int64_t d, int64_t heads, bool training);
// T5: projections of `inner` = heads * d_kv columns, which need not equal d (the output).
AttentionActivations allocate_attention(Arena& arena, int64_t batch, int64_t q_len, int64_t k_len,
                                        int64_t d, int64_t inner, int64_t heads, bool training);
LayerNormActivations allocate_layer_norm(Arena& arena, int64_t batch, int64_t len, int64_t d);
FeedForwardActivations allocate_feed_forward(Arena& arena, int64_t batch, int64_t len, int64_t d,
                                             int64_t ffn);
AttentionGradScratch allocate_attention_grads(Arena& arena, int64_t batch, int64_t q_len,
                                              int64_t k_len, int64_t d);

// Scores scale: BART's head_dim^-0.5; T5 scales nothing (its initialisation holds the scale).
struct AttentionScaling {
  bool by_head_dim = true;
  static AttentionScaling none() { return {false}; }
};

// BART attention: q = (x·Wq + bq) * head_dim^-0.5, k/v from `kv` (x itself for
// self-attention, the encoder output for cross-attention); out = dropout(out_proj(...)).
// Undefined biases are skipped (T5's projections have none).
void attention_block_forward(const AttentionParams& p, const Tensor& x, const Tensor& kv,
                             int64_t heads, const AttentionMask& mask, const BlockDropout& dropout,
                             AttentionActivations& a, AttentionScaling scaling = {});
// Inference (no dropout).
inline void attention_block_forward(const AttentionParams& p, const Tensor& x, const Tensor& kv,
                                    int64_t heads, const AttentionMask& mask, AttentionActivations& a,
                                    AttentionScaling scaling = {}) {
  attention_block_forward(p, x, kv, heads, mask, BlockDropout{}, a, scaling);
}
// d_out: gradient of the block's output (after its dropout); overwritten.
// dx = (x's share), written; dkv += (kv's share) when kv is a different tensor from x,
// added into dx when `self_attention`. d_scores (B, H, Tq, Tk), when defined, receives the
// scores' gradient (for a position bias).
void attention_block_backward(const AttentionParams& p, const Tensor& x, const Tensor& kv,
                              int64_t heads, const BlockDropout& dropout, AttentionActivations& a,
                              const Tensor& d_out, AttentionGradScratch& s, AttentionParams& grads,
                              const Tensor& dx, const Tensor& dkv, bool self_attention,
                              AttentionScaling scaling = {}, const Tensor& d_scores = Tensor{});

void layer_norm_forward(const LayerNormParams& p, const Tensor& x, float eps,
                        LayerNormActivations& a);
void layer_norm_backward(const LayerNormParams& p, const Tensor& x, const LayerNormActivations& a,
                         const Tensor& d_out, LayerNormParams& grads, const Tensor& dx);

// dropout(fc2(dropout(act(fc1(x))))).
void feed_forward_forward(const FeedForwardParams& p, Activation act, const Tensor& x,
                          const BlockDropout& dropout, FeedForwardActivations& a);
inline void feed_forward_forward(const FeedForwardParams& p, Activation act, const Tensor& x,
                                 FeedForwardActivations& a) {
  feed_forward_forward(p, act, x, BlockDropout{}, a);
}
// d_out (B, T, d) overwritten; d_hidden (B, T, ffn) scratch; dx written.
void feed_forward_backward(const FeedForwardParams& p, Activation act, const Tensor& x,
                           const BlockDropout& dropout, FeedForwardActivations& a,
                           const Tensor& d_out, const Tensor& d_hidden, FeedForwardParams& grads,
                           const Tensor& dx);

}  // namespace precis
