// The gradient scratch both families' backward works in, the buffers they share (BART's and
// T5's scratch add their own): activation gradients reused stage after stage, and the hook
// that reports each finished stage.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "precis/core/arena.h"
#include "precis/kernels/fill.h"
#include "precis/model/common/layers.h"

namespace precis {

struct Seq2SeqGradScratch {
  // Of the stream's type (`stream` below):
  Tensor d_hidden;          // (B, max(S, T), d) gradient of the residual stream
  Tensor d_branch;          // (B, max(S, T), d) gradient of a sub-layer's output branch
  Tensor d_encoder_output;  // (B, S, d) summed over the decoder's cross-attentions
  // (B, max(S, T), d) of the compute type, where the stream is fp32 and the compute type 16-bit:
  // a branch's gradient rounded for its 16-bit products (autocast's cast in reverse); else
  // undefined.
  Tensor d_branch16;
  AttentionGradScratch attention;
  // Optional: called as the backward ends each of the family's stages (bart_stages.h,
  // t5_stages.h). Data parallelism starts all-reducing the gradients that are final by then.
  std::function<void(int stage)> stage_done;

  void end_stage(int stage) const {
    if (stage_done) stage_done(stage);
  }

  // The encoder output's gradient for a (B, S, d) step, zeroed: each decoder layer's
  // cross-attention adds its part as the backward passes it.
  Tensor zeroed_encoder_output_grad(int64_t B, int64_t S, int64_t d) const {
    Tensor denc = d_encoder_output.prefix({B, S, d});
    zero(denc);
    return denc;
  }
};

// Lays out the shared buffers for a (batch, source_len, target_len) step; attention_width:
// the attention projections' width, which the attention gradients take; `stream`: the residual
// stream's type (F32, or the arena's compute type where the family keeps its stream in it).
inline void allocate_seq2seq_grad_scratch(Seq2SeqGradScratch& s, Arena& arena, int64_t batch,
                                          int64_t source_len, int64_t target_len, int64_t d,
                                          int64_t attention_width, DType stream) {
  const int64_t L = std::max(source_len, target_len);
  s.d_hidden = arena.alloc({batch, L, d}, stream);
  s.d_branch = arena.alloc({batch, L, d}, stream);
  s.d_encoder_output = arena.alloc({batch, source_len, d}, stream);
  if (stream != arena.element_type()) s.d_branch16 = arena.alloc({batch, L, d});
  s.attention = allocate_attention_grads(arena, batch, L, L, attention_width);
}

}  // namespace precis
