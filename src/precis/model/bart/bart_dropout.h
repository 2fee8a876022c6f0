// Where BART applies dropout (dropout_context.h gives the streams). Shared by the forward and
// the backward (which regenerates the same masks).
#pragma once

#include "precis/model/bart/bart.h"
#include "precis/model/common/dropout_context.h"

namespace precis::bart_dropout {

using namespace dropout_sites;

// Self-attention (or, with cross = true, cross-attention) of a layer.
inline BlockDropout attention(const BartConfig& c, const DropoutContext& ctx, uint32_t layer,
                              bool cross = false) {
  return {spec(ctx, c.attention_dropout, layer, cross ? kCrossProbs : kSelfProbs), {},
          spec(ctx, c.dropout, layer, cross ? kCrossResidual : kSelfResidual)};
}

inline BlockDropout feed_forward(const BartConfig& c, const DropoutContext& ctx, uint32_t layer) {
  return {{}, spec(ctx, c.activation_dropout, layer, kActivation),
          spec(ctx, c.dropout, layer, kFfnResidual)};
}

inline DropoutSpec embedding(const BartConfig& c, const DropoutContext& ctx, uint32_t layer) {
  return spec(ctx, c.dropout, layer, kSelfResidual);
}

}  // namespace precis::bart_dropout
