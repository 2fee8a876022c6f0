// T5's own layer pieces beside the shared ones of layers.h: the RMSNorm sub-layer input and
// the feed-forward in both forms (DenseReluDense of v1.0 reuses layers.h's feed-forward;
// the gated form of v1.1/FLAN is here). Forward and backward side by side.
#pragma once

#include "precis/model/common/layers.h"
#include "precis/model/t5/t5_params.h"

namespace precis {

// out is F32 always (the residual stream's norm, fp32 under mixed precision as under HF's
// autocast); `rounded` holds it rounded to a 16-bit arena's compute type for the linear layers
// that read it (layers.h's LayerNormActivations), and is undefined elsewhere.
struct RmsNormActivations {
  Tensor rstd;     // (B*T)
  Tensor out;      // (B, T, d)
  Tensor rounded;  // (B, T, d) 16-bit, or undefined

  const Tensor& linear_input() const { return rounded.ptr ? rounded : out; }
};

// Gated: ff.fc1 = wi_0·x, gate = act(fc1), up = wi_1·x, ff.act = dropout(gate ⊙ up),
// ff.fc2 = dropout(wo·ff.act). Relu (v1.0): ff as layers.h's feed-forward; gate, up unused.
struct T5FeedForwardActivations {
  FeedForwardActivations ff;
  Tensor gate, up;  // (B, T, d_ff), gated only
};

// Gradient scratch of one T5 feed-forward: (B, T, d_ff) twice and (B, T, d).
struct T5FeedForwardGradScratch {
  Tensor d_hidden, d_up;
  Tensor d_x;
};

RmsNormActivations allocate_rms_norm(Arena& arena, int64_t batch, int64_t len, int64_t d);
T5FeedForwardActivations allocate_t5_feed_forward(const T5Config& c, Arena& arena, int64_t batch,
                                                  int64_t len);
T5FeedForwardGradScratch allocate_t5_feed_forward_grads(const T5Config& c, Arena& arena,
                                                        int64_t batch, int64_t len);

void t5_feed_forward_forward(const T5Config& c, const T5FeedForwardParams& p, const Tensor& x,
                             const BlockDropout& dropout, T5FeedForwardActivations& a);
// d_out (B, T, d) overwritten; dx written; parameter gradients accumulate.
void t5_feed_forward_backward(const T5Config& c, const T5FeedForwardParams& p, const Tensor& x,
                              const BlockDropout& dropout, T5FeedForwardActivations& a,
                              const Tensor& d_out, T5FeedForwardGradScratch& s,
                              T5FeedForwardParams& grads, const Tensor& dx);

}  // namespace precis
