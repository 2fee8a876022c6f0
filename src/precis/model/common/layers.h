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

// Under mixed precision (a 16-bit activation arena: CUDA's --bf16 / --fp16) BART's residual
// stream is fp32 as under HF's autocast: `out` is F32 always, and `rounded` holds it rounded to
// the compute type, as autocast casts F.linear's input, for the linear layers that read it (kept
// for their weight gradients). On the CPU, or in fp32, `rounded` is undefined.
struct LayerNormActivations {
  Tensor mean, rstd;  // (B*T)
  Tensor out;         // (B, T, d)
  Tensor rounded;     // (B, T, d) 16-bit, or undefined

  // What a linear layer after the norm multiplies.
  const Tensor& linear_input() const { return rounded.ptr ? rounded : out; }
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
// out F32 (the stream), plus `rounded` in a 16-bit arena.
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
// x's share of a linear layer's gradient, dy · weight, written into dx (accumulate false) or
// added to it (true), with weight's and bias's gradients added as linear_backward adds them.
// dx may be of dy's type, or F32 for a 16-bit dy (a mixed-precision stream's gradient, as the
// backward of autocast's cast gives it: the shares of one input sum in fp32; here in the GEMM,
// unrounded, where autocast rounds each to 16 bits first). `scratch` (at least dx's elements,
// of dy's type) holds a share added to a dx of dy's type.
void linear_input_share(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& dx,
                        bool accumulate, const Tensor& scratch, const Tensor& dweight,
                        const Tensor& dbias);

// d_out: gradient of the block's output (after its dropout); overwritten.
// dx = (x's share), written, or added when `add_to_dx` (of d_out's type, or F32:
// linear_input_share); dkv += (kv's share) when
// kv is a different tensor from x, added into dx when `self_attention`. d_scores (B, H, Tq, Tk),
// when defined, receives the scores' gradient (for a position bias).
void attention_block_backward(const AttentionParams& p, const Tensor& x, const Tensor& kv,
                              int64_t heads, const BlockDropout& dropout, AttentionActivations& a,
                              const Tensor& d_out, AttentionGradScratch& s, AttentionParams& grads,
                              const Tensor& dx, const Tensor& dkv, bool self_attention,
                              AttentionScaling scaling = {}, const Tensor& d_scores = Tensor{},
                              bool add_to_dx = false);

// Also fills a.rounded where it is defined.
void layer_norm_forward(const LayerNormParams& p, const Tensor& x, float eps,
                        LayerNormActivations& a);
// rounded_dx, when defined: dx rounded to 16 bits too, in the same pass.
void layer_norm_backward(const LayerNormParams& p, const Tensor& x, const LayerNormActivations& a,
                         const Tensor& d_out, LayerNormParams& grads, const Tensor& dx,
                         const Tensor& rounded_dx = Tensor{});

// dropout(fc2(dropout(act(fc1(x))))).
void feed_forward_forward(const FeedForwardParams& p, Activation act, const Tensor& x,
                          const BlockDropout& dropout, FeedForwardActivations& a);
inline void feed_forward_forward(const FeedForwardParams& p, Activation act, const Tensor& x,
                                 FeedForwardActivations& a) {
  feed_forward_forward(p, act, x, BlockDropout{}, a);
}
// d_out (B, T, d) overwritten (it ends as scratch); d_hidden (B, T, ffn) scratch; dx written,
// or added to when `add_to_dx` (of d_out's type, or F32: linear_input_share).
void feed_forward_backward(const FeedForwardParams& p, Activation act, const Tensor& x,
                           const BlockDropout& dropout, FeedForwardActivations& a,
                           const Tensor& d_out, const Tensor& d_hidden, FeedForwardParams& grads,
                           const Tensor& dx, bool add_to_dx = false);

}  // namespace precis
