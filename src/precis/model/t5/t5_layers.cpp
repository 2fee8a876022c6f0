#include "precis/model/t5/t5_layers.h"

#include "precis/kernels/elementwise.h"
#include "precis/kernels/linear.h"

namespace precis {

namespace {
FeedForwardParams dense_relu_dense(const T5FeedForwardParams& p) { return {p.wi, p.wo}; }
}  // namespace

RmsNormActivations allocate_rms_norm(Arena& arena, int64_t batch, int64_t len, int64_t d) {
  RmsNormActivations a{arena.alloc({batch * len}, DType::F32),
                       arena.alloc({batch, len, d}, DType::F32), Tensor{}};
  if (arena.element_type() != DType::F32) a.rounded = arena.alloc({batch, len, d});
  return a;
}

T5FeedForwardActivations allocate_t5_feed_forward(const T5Config& c, Arena& arena, int64_t batch,
                                                  int64_t len) {
  T5FeedForwardActivations a;
  a.ff = allocate_feed_forward(arena, batch, len, c.d_model, c.d_ff);
  if (c.gated) {
    a.gate = arena.alloc({batch, len, c.d_ff});
    a.up = arena.alloc({batch, len, c.d_ff});
  }
  return a;
}

T5FeedForwardGradScratch allocate_t5_feed_forward_grads(const T5Config& c, Arena& arena,
                                                        int64_t batch, int64_t len) {
  T5FeedForwardGradScratch s;
  s.d_hidden = arena.alloc({batch, len, c.d_ff});
  if (c.gated) {
    s.d_up = arena.alloc({batch, len, c.d_ff});
    s.d_x = arena.alloc({batch, len, c.d_model});
  }
  return s;
}

void t5_feed_forward_forward(const T5Config& c, const T5FeedForwardParams& p, const Tensor& x,
                             const BlockDropout& dropout, T5FeedForwardActivations& a) {
  if (!c.gated) {
    feed_forward_forward(dense_relu_dense(p), c.dense_act, x, dropout, a.ff);
    return;
  }
  linear_forward(x, p.wi_0.weight, Tensor{}, a.ff.fc1);
  activation_forward(c.dense_act, a.ff.fc1, a.gate);
  linear_forward(x, p.wi_1.weight, Tensor{}, a.up);
  multiply(a.gate, a.up, a.ff.act);
  dropout_forward(a.ff.act, dropout.activation, a.ff.act);
  linear_forward(a.ff.act, p.wo.weight, Tensor{}, a.ff.fc2);
  dropout_forward(a.ff.fc2, dropout.residual, a.ff.fc2);
}

void t5_feed_forward_backward(const T5Config& c, const T5FeedForwardParams& p, const Tensor& x,
                              const BlockDropout& dropout, T5FeedForwardActivations& a,
                              const Tensor& d_out, T5FeedForwardGradScratch& s,
                              T5FeedForwardParams& g, const Tensor& dx) {
  if (!c.gated) {
    FeedForwardParams grads = dense_relu_dense(g);
    feed_forward_backward(dense_relu_dense(p), c.dense_act, x, dropout, a.ff, d_out, s.d_hidden,
                          grads, dx);
    return;
  }
  Tensor dh = s.d_hidden.prefix(a.up.shape), dup = s.d_up.prefix(a.up.shape);
  Tensor dx_up = s.d_x.prefix(x.shape);
  dropout_backward(d_out, dropout.residual, d_out);
  linear_backward(d_out, a.ff.act, p.wo.weight, dh, g.wo.weight, Tensor{});
  dropout_backward(dh, dropout.activation, dh);
  // hidden = gate ⊙ up: d_up = dh ⊙ gate, d_gate = dh ⊙ up (dh then holds d_gate).
  multiply(dh, a.gate, dup);
  multiply(dh, a.up, dh);
  activation_backward(c.dense_act, a.ff.fc1, dh, dh);
  linear_input_share(dh, x, p.wi_0.weight, dx, false, dx_up, g.wi_0.weight, Tensor{});
  linear_input_share(dup, x, p.wi_1.weight, dx, true, dx_up, g.wi_1.weight, Tensor{});
}

}  // namespace precis
