// BART's parameters as explicit structs of tensor views into one flat arena (so the
// gradients, laid out by the same code, are one flat buffer too). Every tensor is visited
// with its Hugging Face state-dict name: loading, saving, optimizer groups and gradient
// buckets all go through `visit_parameters`.
#pragma once

#include <string>
#include <vector>

#include "precis/core/arena.h"
#include "precis/model/bart/bart_config.h"
#include "precis/model/common/parameters.h"

namespace precis {

struct BartEncoderLayerParams {
  AttentionParams self_attn;
  LayerNormParams self_attn_layer_norm;
  FeedForwardParams ffn;
  LayerNormParams final_layer_norm;
};

struct BartDecoderLayerParams {
  AttentionParams self_attn;
  LayerNormParams self_attn_layer_norm;
  AttentionParams encoder_attn;  // cross-attention: queries from the decoder, keys/values from the encoder
  LayerNormParams encoder_attn_layer_norm;
  FeedForwardParams ffn;
  LayerNormParams final_layer_norm;
};

struct BartParams {
  Tensor shared;             // (V, d) token embeddings of encoder and decoder (and LM head when tied)
  Tensor encoder_positions;  // (max_pos + 2, d)
  LayerNormParams encoder_layernorm_embedding;
  std::vector<BartEncoderLayerParams> encoder_layers;
  Tensor decoder_positions;  // (max_pos + 2, d)
  LayerNormParams decoder_layernorm_embedding;
  std::vector<BartDecoderLayerParams> decoder_layers;
  Tensor lm_head;            // (V, d); the same view as `shared` when tie_word_embeddings
  Tensor final_logits_bias;  // (1, V) buffer: added to the logits, never trained
};

// Visits every distinct tensor of the model once, in HF state-dict order. A tied lm_head is
// not visited (it is `shared`); an untied one is visited as "lm_head.weight".
void visit_parameters(const BartConfig& config, BartParams& params, const ParamVisitor& visit);

// Lays parameters (trainable and buffers) out in `arena`; pass Arena::measuring() to size it.
void allocate_parameters(const BartConfig& config, BartParams& params, Arena& arena);

// Bytes allocate_parameters needs.
size_t parameter_bytes(const BartConfig& config);
int64_t parameter_count(const BartConfig& config);  // trainable elements, as HF's num_parameters()

}  // namespace precis
