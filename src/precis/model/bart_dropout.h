// Where BART applies dropout, and which RNG stream each site draws its mask from. Shared
// by the forward and the backward (which regenerates the same masks).
#pragma once

#include "precis/kernels/dropout.h"
#include "precis/model/bart.h"

namespace precis::bart_dropout {

// Layer ids in the stream: encoder layers 0.., decoder layers kDecoder + j, embeddings last.
constexpr uint32_t kDecoder = 1u << 16;
constexpr uint32_t kEncoderEmbedding = kDecoder - 1;
constexpr uint32_t kDecoderEmbedding = 2 * kDecoder - 1;
enum Site : uint32_t { kSelfProbs, kSelfResidual, kActivation, kFfnResidual, kCrossProbs, kCrossResidual };

inline DropoutSpec spec(const BartDropoutContext& ctx, double p, uint32_t layer, uint32_t site) {
  if (!ctx.training || p == 0.0) return {};
  return {float(p), ctx.seed, dropout_stream(ctx.step, ctx.micro_batch, layer, site), ctx.first_row, ctx.rows};
}

// Self-attention (or, with cross = true, cross-attention) of a layer.
inline BlockDropout attention(const BartConfig& c, const BartDropoutContext& ctx, uint32_t layer,
                              bool cross = false) {
  return {spec(ctx, c.attention_dropout, layer, cross ? kCrossProbs : kSelfProbs), {},
          spec(ctx, c.dropout, layer, cross ? kCrossResidual : kSelfResidual)};
}

inline BlockDropout feed_forward(const BartConfig& c, const BartDropoutContext& ctx, uint32_t layer) {
  return {{}, spec(ctx, c.activation_dropout, layer, kActivation),
          spec(ctx, c.dropout, layer, kFfnResidual)};
}

inline DropoutSpec embedding(const BartConfig& c, const BartDropoutContext& ctx, uint32_t layer) {
  return spec(ctx, c.dropout, layer, kSelfResidual);
}

}  // namespace precis::bart_dropout
