// Where T5 applies dropout (dropout_rate everywhere: transformers 4.44
// models/t5/modeling_t5.py, T5Stack.forward, T5LayerSelfAttention, T5LayerCrossAttention,
// T5LayerFF, T5DenseActDense / T5DenseGatedActDense and T5Attention.forward) and which RNG
// stream each site draws from (dropout_context.h): the shared layer numbering and sites, plus
// the final norms' output.
#pragma once

#include "precis/model/common/dropout_context.h"
#include "precis/model/t5/t5.h"

namespace precis::t5_dropout {

using namespace dropout_sites;
namespace site = dropout_sites;

inline BlockDropout attention(const T5Config& c, const DropoutContext& ctx, uint32_t layer,
                              bool cross = false) {
  return {spec(ctx, c.dropout_rate, layer, cross ? site::kCrossProbs : site::kSelfProbs),
          {},
          spec(ctx, c.dropout_rate, layer,
                             cross ? site::kCrossResidual : site::kSelfResidual)};
}

inline BlockDropout feed_forward(const T5Config& c, const DropoutContext& ctx, uint32_t layer) {
  return {{}, spec(ctx, c.dropout_rate, layer, site::kActivation),
          spec(ctx, c.dropout_rate, layer, site::kFfnResidual)};
}

// Dropout of a stack's embeddings (stack = kEncoderEmbedding or kDecoderEmbedding).
inline DropoutSpec embedding(const T5Config& c, const DropoutContext& ctx, uint32_t stack) {
  return spec(ctx, c.dropout_rate, stack, site::kSelfResidual);
}

// Dropout after a stack's final_layer_norm.
inline DropoutSpec final_norm(const T5Config& c, const DropoutContext& ctx, uint32_t stack) {
  return spec(ctx, c.dropout_rate, stack, site::kFfnResidual);
}

}  // namespace precis::t5_dropout
