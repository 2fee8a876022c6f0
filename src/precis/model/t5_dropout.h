// Where T5 applies dropout (dropout_rate everywhere: transformers 4.44
// models/t5/modeling_t5.py, T5Stack.forward, T5LayerSelfAttention, T5LayerCrossAttention,
// T5LayerFF, T5DenseActDense / T5DenseGatedActDense and T5Attention.forward) and which RNG
// stream each site draws from: BART's layer numbering and sites, plus the final norms' output.
#pragma once

#include "precis/model/bart_dropout.h"
#include "precis/model/t5.h"

namespace precis::t5_dropout {

using bart_dropout::kDecoder;
using bart_dropout::kDecoderEmbedding;
using bart_dropout::kEncoderEmbedding;
namespace site = bart_dropout;

inline BlockDropout attention(const T5Config& c, const T5DropoutContext& ctx, uint32_t layer,
                              bool cross = false) {
  return {bart_dropout::spec(ctx, c.dropout_rate, layer, cross ? site::kCrossProbs : site::kSelfProbs),
          {},
          bart_dropout::spec(ctx, c.dropout_rate, layer,
                             cross ? site::kCrossResidual : site::kSelfResidual)};
}

inline BlockDropout feed_forward(const T5Config& c, const T5DropoutContext& ctx, uint32_t layer) {
  return {{}, bart_dropout::spec(ctx, c.dropout_rate, layer, site::kActivation),
          bart_dropout::spec(ctx, c.dropout_rate, layer, site::kFfnResidual)};
}

// Dropout of a stack's embeddings (stack = kEncoderEmbedding or kDecoderEmbedding).
inline DropoutSpec embedding(const T5Config& c, const T5DropoutContext& ctx, uint32_t stack) {
  return bart_dropout::spec(ctx, c.dropout_rate, stack, site::kSelfResidual);
}

// Dropout after a stack's final_layer_norm.
inline DropoutSpec final_norm(const T5Config& c, const T5DropoutContext& ctx, uint32_t stack) {
  return bart_dropout::spec(ctx, c.dropout_rate, stack, site::kFfnResidual);
}

}  // namespace precis::t5_dropout
