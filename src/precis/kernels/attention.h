// Scaled dot-product attention over heads packed in the last dimension, as BART lays
// them out after its projections: position t of head h is at [b, t, h*head_dim ...].
// Masked keys get exactly zero probability, which is what adding finfo(float32).min
// (Hugging Face's additive mask) gives; a row with every key masked becomes uniform, as
// it does there.
//
// q, k, v and out (the backward's dout, dq, dk, dv) are one dtype: F32, or on CUDA BF16 or F16
// (mixed precision: computed in fp32, each result rounded once). The position bias, probs,
// log_sum_exp and d_scores are F32 either way.
#pragma once

#include "precis/core/tensor.h"
#include "precis/kernels/dropout.h"

namespace precis {

// Sizes and strides of an attention, as the kernels take them.
struct AttentionShape {
  int64_t batch, heads, q_len, k_len, head_dim;
  int64_t q_stride, k_stride, v_stride, out_stride;  // elements between consecutive positions
};

struct AttentionMask {
  Tensor key_padding = {};  // (B, Tk) I32, 1 = attend, 0 = padding; undefined = attend to all
  bool causal = false;      // query i sees keys j <= i + past
  int64_t past = 0;
  // (H, Tq, Tk) added to the scaled scores before masking, the same for every batch row:
  // T5's relative position bias. Undefined: none.
  Tensor position_bias = {};
  // A beam-search cache read in place, never reordered (attention_reads_in_place): k and v are
  // laid out (B, capacity, W), and batch row b's keys are its positions 0 .. live_keys - 1, the
  // key and value of position j in row key_rows[b, j] of k and v (beams share the rows their
  // prefixes were written in). Undefined: each batch row's keys are its own, all of them.
  Tensor key_rows = {};  // (B, capacity) I32, on the host
  int64_t live_keys = 0;
};

// What the forward keeps for the backward; neither in inference. A backend keeps one of them
// (attention_saves_probs):
// - probs (B, H, Tq, Tk): the softmax itself, before dropout. The CPU's choice: recomputing
//   the scores would cost another product per head, and host memory is plentiful.
// - log_sum_exp (B, H, Tq): each query row's log Σ exp(score) over its visible keys, from
//   which a recomputing backend (flash-style, on a GPU) rebuilds the softmax tile by tile in
//   the backward and never holds a (Tq, Tk) matrix. A row with no visible key is uniform.
struct AttentionSaved {
  Tensor probs;
  Tensor log_sum_exp;
  AttentionSaved() = default;
  AttentionSaved(const Tensor& probs) : probs(probs) {}  // NOLINT: a tensor of probs is one
  static AttentionSaved row_statistics(const Tensor& log_sum_exp) {
    AttentionSaved s;
    s.log_sum_exp = log_sum_exp;
    return s;
  }
  bool defined() const { return probs.ptr || log_sum_exp.ptr; }
};

// Whether attention on `device` reads a cache in place through AttentionMask::key_rows for
// heads `head_dim` wide (inference, a few queries per head): the CPU's decoding kernel does.
bool attention_reads_in_place(Device device, int64_t head_dim);

// Whether attention on `device` keeps the probabilities (else the rows' log-sum-exp).
bool attention_saves_probs(Device device);

// q (B, Tq, H*hd); k, v (B, Tk, H*hd); out (B, Tq, H*hd); saved as above, or undefined.
// With dropout (attention_dropout), out = dropout(P) · v; the mask is element (b, h, i, j) of
// the flat (B, H, Tq, Tk) index space of the spec's (seed, stream), so the backward redraws it.
void attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                       float scale, const AttentionMask& mask, const Tensor& out,
                       const AttentionSaved& saved, const DropoutSpec& dropout = {});

// Given dout (B, Tq, H*hd), with P = probs, D = dropout(P) and S = scale · q·kᵀ + mask:
//   dv = Dᵀ · dout                      (=)
//   dP = keep/(1-p) ∘ (dout · vᵀ)
//   dS = P ∘ (dP - rowsum(dP ∘ P))      (softmax backward; masked keys have P = 0)
//   dq = scale · dS · k,  dk = scale · dSᵀ · q   (=)
// dq, dk, dv have the shapes of q, k, v. Each (batch, head) writes its own columns, so the
// result does not depend on the thread count. d_scores (B, H, Tq, Tk), when defined, gets dS
// (=): the gradient of an additive position bias, before its sum over the batch. From saved
// log-sum-exps P is recomputed, P = exp(S - lse) on the visible keys, which needs the forward's
// mask (its padding, causality and position bias); from saved probs the mask is not read.
void attention_backward(const Tensor& dout, const Tensor& q, const Tensor& k, const Tensor& v,
                        const AttentionSaved& saved, int64_t heads, float scale,
                        const DropoutSpec& dropout, const Tensor& dq, const Tensor& dk,
                        const Tensor& dv, const Tensor& d_scores = Tensor{},
                        const AttentionMask& mask = {});

}  // namespace precis
