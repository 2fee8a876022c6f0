#include "precis/model/layers.h"

#include <cmath>

#include "precis/kernels/layernorm.h"
#include "precis/kernels/linear.h"

namespace precis {

AttentionActivations allocate_attention(Arena& arena, int64_t batch, int64_t q_len, int64_t k_len,
                                        int64_t d, int64_t heads, bool keep_probs) {
  AttentionActivations a;
  a.q = arena.alloc({batch, q_len, d});
  a.k = arena.alloc({batch, k_len, d});
  a.v = arena.alloc({batch, k_len, d});
  if (keep_probs) a.probs = arena.alloc({batch, heads, q_len, k_len});
  a.context = arena.alloc({batch, q_len, d});
  a.out = arena.alloc({batch, q_len, d});
  return a;
}

LayerNormActivations allocate_layer_norm(Arena& arena, int64_t batch, int64_t len, int64_t d) {
  return {arena.alloc({batch * len}), arena.alloc({batch * len}), arena.alloc({batch, len, d})};
}

FeedForwardActivations allocate_feed_forward(Arena& arena, int64_t batch, int64_t len, int64_t d,
                                             int64_t ffn) {
  return {arena.alloc({batch, len, ffn}), arena.alloc({batch, len, ffn}), arena.alloc({batch, len, d})};
}

void attention_block_forward(const AttentionParams& p, const Tensor& x, const Tensor& kv,
                             int64_t heads, const AttentionMask& mask, AttentionActivations& a) {
  linear_forward(x, p.q_proj.weight, p.q_proj.bias, a.q);
  linear_forward(kv, p.k_proj.weight, p.k_proj.bias, a.k);
  linear_forward(kv, p.v_proj.weight, p.v_proj.bias, a.v);
  float scale = float(1.0 / std::sqrt(double(x.size(2) / heads)));
  attention_forward(a.q, a.k, a.v, heads, scale, mask, a.context, a.probs);
  linear_forward(a.context, p.out_proj.weight, p.out_proj.bias, a.out);
}

void layer_norm_forward(const LayerNormParams& p, const Tensor& x, float eps,
                        LayerNormActivations& a) {
  layernorm_forward(x, p.weight, p.bias, eps, a.out, a.mean, a.rstd);
}

void feed_forward_forward(const FeedForwardParams& p, Activation act, const Tensor& x,
                          FeedForwardActivations& a) {
  linear_forward(x, p.fc1.weight, p.fc1.bias, a.fc1);
  activation_forward(act, a.fc1, a.act);
  linear_forward(a.act, p.fc2.weight, p.fc2.bias, a.fc2);
}

}  // namespace precis
