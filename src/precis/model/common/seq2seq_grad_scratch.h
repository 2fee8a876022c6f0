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
  Tensor d_hidden;          // (B, max(S, T), d) gradient of the residual stream
  Tensor d_branch;          // (B, max(S, T), d) gradient of a sub-layer's output branch
  Tensor d_encoder_output;  // (B, S, d) summed over the decoder's cross-attentions
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
// the attention projections' width, which the attention gradients take.
inline void allocate_seq2seq_grad_scratch(Seq2SeqGradScratch& s, Arena& arena, int64_t batch,
                                          int64_t source_len, int64_t target_len, int64_t d,
                                          int64_t attention_width) {
  const int64_t L = std::max(source_len, target_len);
  s.d_hidden = arena.alloc({batch, L, d});
  s.d_branch = arena.alloc({batch, L, d});
  s.d_encoder_output = arena.alloc({batch, source_len, d});
  s.attention = allocate_attention_grads(arena, batch, L, L, attention_width);
}

}  // namespace precis
