// The layout of BART's activations and gradient scratch (bart.h), made of its layers'
// sub-layers: each an attention or feed-forward block, the residual sum after it and that
// sum's layer norm. The residual stream (embeddings, sums, norms), the logits and their
// gradients are fp32 under mixed precision too, as under HF's autocast; the branches (the
// attention and feed-forward blocks) and their gradients are of the compute type.
#include <algorithm>

#include "precis/model/bart/bart.h"

namespace precis {

const LayerNormActivations& BartActivations::encoder_output() const {
  return encoder_layers.empty() ? encoder_layernorm_embedding
                                : encoder_layers.back().final_layer_norm;
}

const LayerNormActivations& BartActivations::decoder_output() const {
  return decoder_layers.empty() ? decoder_layernorm_embedding
                                : decoder_layers.back().final_layer_norm;
}

namespace {

// A post-LN attention sub-layer's activations, Tq queries over Tk keys: the attention block,
// the residual sum x + attention(x) and its layer norm.
void allocate_attention_sublayer(Arena& arena, int64_t B, int64_t Tq, int64_t Tk, int64_t d,
                                 int64_t heads, bool training, AttentionActivations& attention,
                                 Tensor& sum, LayerNormActivations& norm) {
  attention = allocate_attention(arena, B, Tq, Tk, d, heads, training);
  sum = arena.alloc({B, Tq, d}, DType::F32);
  norm = allocate_layer_norm(arena, B, Tq, d);
}

// The feed-forward sub-layer's: the feed-forward, x + ffn(x) and its layer norm.
void allocate_feed_forward_sublayer(Arena& arena, int64_t B, int64_t L, int64_t d, int64_t ffn,
                                    FeedForwardActivations& feed_forward, Tensor& sum,
                                    LayerNormActivations& norm) {
  feed_forward = allocate_feed_forward(arena, B, L, d, ffn);
  sum = arena.alloc({B, L, d}, DType::F32);
  norm = allocate_layer_norm(arena, B, L, d);
}

BartDecoderLayerActivations allocate_decoder_layer(const BartConfig& c, Arena& arena, int64_t B,
                                                   int64_t S, int64_t T, bool training) {
  const int64_t d = c.d_model, heads = c.decoder_attention_heads;
  BartDecoderLayerActivations l;
  allocate_attention_sublayer(arena, B, T, T, d, heads, training, l.self_attn, l.residual1,
                              l.self_attn_layer_norm);
  allocate_attention_sublayer(arena, B, T, S, d, heads, training, l.encoder_attn, l.residual2,
                              l.encoder_attn_layer_norm);
  allocate_feed_forward_sublayer(arena, B, T, d, c.decoder_ffn_dim, l.ffn, l.residual3,
                                 l.final_layer_norm);
  return l;
}

}  // namespace

BartEncoderLayerActivations allocate_encoder_layer(const BartConfig& c, Arena& arena, int64_t B,
                                                   int64_t S, bool training) {
  const int64_t d = c.d_model;
  BartEncoderLayerActivations l;
  allocate_attention_sublayer(arena, B, S, S, d, c.encoder_attention_heads, training, l.self_attn,
                              l.residual1, l.self_attn_layer_norm);
  allocate_feed_forward_sublayer(arena, B, S, d, c.encoder_ffn_dim, l.ffn, l.residual2,
                                 l.final_layer_norm);
  return l;
}

BartActivations allocate_activations(const BartConfig& c, Arena& arena, int64_t B, int64_t S,
                                     int64_t T, bool training) {
  const int64_t d = c.d_model;
  BartActivations a;
  a.batch = B;
  a.source_len = S;
  a.target_len = T;
  a.encoder_embedded = arena.alloc({B, S, d}, DType::F32);
  a.encoder_layernorm_embedding = allocate_layer_norm(arena, B, S, d);
  a.encoder_layers.resize(size_t(c.encoder_layers));
  for (auto& l : a.encoder_layers) l = allocate_encoder_layer(c, arena, B, S, training);
  a.decoder_embedded = arena.alloc({B, T, d}, DType::F32);
  a.decoder_layernorm_embedding = allocate_layer_norm(arena, B, T, d);
  a.decoder_layers.resize(size_t(c.decoder_layers));
  for (auto& l : a.decoder_layers) l = allocate_decoder_layer(c, arena, B, S, T, training);
  a.logits = arena.alloc({B, T, c.vocab_size}, DType::F32);
  if (arena.element_type() != DType::F32) a.rounded_logits = arena.alloc({B, T, c.vocab_size});
  a.losses = arena.alloc({B * T}, DType::F32);
  return a;
}

BartGradScratch allocate_grad_scratch(const BartConfig& c, Arena& arena, int64_t B, int64_t S,
                                      int64_t T) {
  BartGradScratch s;
  allocate_seq2seq_grad_scratch(s, arena, B, S, T, c.d_model, c.d_model, DType::F32);
  s.d_ffn = arena.alloc({B, std::max(S, T), std::max(c.encoder_ffn_dim, c.decoder_ffn_dim)});
  return s;
}

}  // namespace precis
