#include "precis/model/common/layers.h"

#include <cmath>

#include "precis/kernels/elementwise.h"
#include "precis/kernels/layernorm.h"
#include "precis/kernels/linear.h"

namespace precis {

AttentionActivations allocate_attention(Arena& arena, int64_t batch, int64_t q_len, int64_t k_len,
                                        int64_t d, int64_t heads, bool training) {
  return allocate_attention(arena, batch, q_len, k_len, d, d, heads, training);
}

AttentionActivations allocate_attention(Arena& arena, int64_t batch, int64_t q_len, int64_t k_len,
                                        int64_t d, int64_t inner, int64_t heads, bool training) {
  AttentionActivations a;
  a.q = arena.alloc({batch, q_len, inner});
  a.k = arena.alloc({batch, k_len, inner});
  a.v = arena.alloc({batch, k_len, inner});
  // The current device decides, not the arena: a measuring arena sizes the real one.
  if (training && attention_saves_probs(current_device()))
    a.saved.probs = arena.alloc({batch, heads, q_len, k_len}, DType::F32);
  else if (training)
    a.saved.log_sum_exp = arena.alloc({batch, heads, q_len}, DType::F32);
  a.context = arena.alloc({batch, q_len, inner});
  a.out = arena.alloc({batch, q_len, d});
  return a;
}

LayerNormActivations allocate_layer_norm(Arena& arena, int64_t batch, int64_t len, int64_t d) {
  LayerNormActivations a{arena.alloc({batch * len}, DType::F32),
                         arena.alloc({batch * len}, DType::F32),
                         arena.alloc({batch, len, d}, DType::F32), Tensor{}};
  if (arena.element_type() != DType::F32) a.rounded = arena.alloc({batch, len, d});
  return a;
}

FeedForwardActivations allocate_feed_forward(Arena& arena, int64_t batch, int64_t len, int64_t d,
                                             int64_t ffn) {
  return {arena.alloc({batch, len, ffn}), arena.alloc({batch, len, ffn}), arena.alloc({batch, len, d})};
}

AttentionGradScratch allocate_attention_grads(Arena& arena, int64_t batch, int64_t q_len,
                                              int64_t k_len, int64_t d) {
  return {arena.alloc({batch, q_len, d}), arena.alloc({batch, k_len, d}), arena.alloc({batch, k_len, d}),
          arena.alloc({batch, q_len, d}), arena.alloc({batch, std::max(q_len, k_len), d})};
}

namespace {
// head_dim^-0.5 with head_dim = d / heads of x (BART's d_model); 1 without scaling.
float attention_scale(const Tensor& x, int64_t heads, AttentionScaling scaling) {
  if (!scaling.by_head_dim) return 1.0f;
  return float(1.0 / std::sqrt(double(x.size(2) / heads)));
}
}  // namespace

void attention_block_forward(const AttentionParams& p, const Tensor& x, const Tensor& kv,
                             int64_t heads, const AttentionMask& mask, const BlockDropout& dropout,
                             AttentionActivations& a, AttentionScaling scaling) {
  linear_forward(x, p.q_proj.weight, p.q_proj.bias, a.q);
  linear_forward(kv, p.k_proj.weight, p.k_proj.bias, a.k);
  linear_forward(kv, p.v_proj.weight, p.v_proj.bias, a.v);
  attention_forward(a.q, a.k, a.v, heads, attention_scale(x, heads, scaling), mask, a.context, a.saved,
                    dropout.attention);
  a.mask = mask;
  linear_forward(a.context, p.out_proj.weight, p.out_proj.bias, a.out);
  dropout_forward(a.out, dropout.residual, a.out);
}

void linear_input_share(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& dx,
                        bool accumulate, const Tensor& scratch, const Tensor& dweight,
                        const Tensor& dbias) {
  if (dx.dtype != dy.dtype) {  // a mixed-precision stream: the product in fp32, in the GEMM
    linear_backward(dy, x, weight, Tensor{}, dweight, dbias);
    return linear_input_grad_to_fp32(dy, weight, dx, accumulate);
  }
  if (!accumulate) return linear_backward(dy, x, weight, dx, dweight, dbias);
  const Tensor product = scratch.prefix(dx.shape);
  linear_backward(dy, x, weight, product, dweight, dbias);
  add_into(product, dx);
}

void attention_block_backward(const AttentionParams& p, const Tensor& x, const Tensor& kv,
                              int64_t heads, const BlockDropout& dropout, AttentionActivations& a,
                              const Tensor& d_out, AttentionGradScratch& s, AttentionParams& g,
                              const Tensor& dx, const Tensor& dkv, bool self_attention,
                              AttentionScaling scaling, const Tensor& d_scores, bool add_to_dx) {
  Tensor dq = s.dq.prefix(a.q.shape), dk = s.dk.prefix(a.k.shape), dv = s.dv.prefix(a.v.shape);
  Tensor dcontext = s.dcontext.prefix(a.context.shape);
  // out = dropout(context · Wo + bo)
  dropout_backward(d_out, dropout.residual, d_out);
  linear_backward(d_out, a.context, p.out_proj.weight, dcontext, g.out_proj.weight, g.out_proj.bias);
  attention_backward(dcontext, a.q, a.k, a.v, a.saved, heads, attention_scale(x, heads, scaling),
                     dropout.attention, dq, dk, dv, d_scores, a.mask);
  // q = x·Wq + bq (the scale lives inside the attention op): x's share.
  linear_input_share(dq, x, p.q_proj.weight, dx, add_to_dx, s.tmp, g.q_proj.weight, g.q_proj.bias);
  // k and v come from kv: into dx for self-attention, into dkv for cross-attention.
  const Tensor& kv_grad = self_attention ? dx : dkv;
  linear_input_share(dk, kv, p.k_proj.weight, kv_grad, true, s.tmp, g.k_proj.weight, g.k_proj.bias);
  linear_input_share(dv, kv, p.v_proj.weight, kv_grad, true, s.tmp, g.v_proj.weight, g.v_proj.bias);
}

void layer_norm_forward(const LayerNormParams& p, const Tensor& x, float eps,
                        LayerNormActivations& a) {
  layernorm_forward(x, p.weight, p.bias, eps, a.out, a.mean, a.rstd, a.rounded);
}

void layer_norm_backward(const LayerNormParams& p, const Tensor& x, const LayerNormActivations& a,
                         const Tensor& d_out, LayerNormParams& g, const Tensor& dx,
                         const Tensor& rounded_dx) {
  layernorm_backward(d_out, x, p.weight, a.mean, a.rstd, dx, g.weight, g.bias, rounded_dx);
}

void feed_forward_forward(const FeedForwardParams& p, Activation act, const Tensor& x,
                          const BlockDropout& dropout, FeedForwardActivations& a) {
  linear_forward(x, p.fc1.weight, p.fc1.bias, a.fc1);
  activation_forward(act, a.fc1, a.act);
  dropout_forward(a.act, dropout.activation, a.act);
  linear_forward(a.act, p.fc2.weight, p.fc2.bias, a.fc2);
  dropout_forward(a.fc2, dropout.residual, a.fc2);
}

void feed_forward_backward(const FeedForwardParams& p, Activation act, const Tensor& x,
                           const BlockDropout& dropout, FeedForwardActivations& a,
                           const Tensor& d_out, const Tensor& d_hidden, FeedForwardParams& g,
                           const Tensor& dx, bool add_to_dx) {
  Tensor dh = d_hidden.prefix(a.act.shape);
  dropout_backward(d_out, dropout.residual, d_out);
  // fc2's input is the activation after its dropout, which a.act holds.
  linear_backward(d_out, a.act, p.fc2.weight, dh, g.fc2.weight, g.fc2.bias);
  dropout_backward(dh, dropout.activation, dh);
  activation_backward(act, a.fc1, dh, dh);
  // d_out is spent: the scratch of a share added to dx.
  linear_input_share(dh, x, p.fc1.weight, dx, add_to_dx, d_out, g.fc1.weight, g.fc1.bias);
}

}  // namespace precis
