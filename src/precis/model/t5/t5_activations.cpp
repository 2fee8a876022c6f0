// The layout of T5's activations and gradient scratch (t5.h), made of its blocks' layers
// (T5LayerSelfAttention, T5LayerCrossAttention, T5LayerFF): each a norm of the residual
// stream, an attention or feed-forward, and the stream after it. The stream (embeddings,
// residuals, norms, the LM head's input) and its gradients are fp32 under mixed precision too,
// as under HF's autocast; the branches and the logits (T5's LM head has no bias: autocast
// leaves them 16-bit, and the loss widens them) of the compute type.
#include <algorithm>

#include "precis/model/t5/t5.h"

namespace precis {

namespace {

// T5LayerSelfAttention's or T5LayerCrossAttention's activations, Tq rows attending to Tk keys:
// the RMSNorm of the residual stream, the attention, the stream after it.
void allocate_layer_attention(const T5Config& c, Arena& arena, int64_t B, int64_t Tq, int64_t Tk,
                              bool training, RmsNormActivations& norm,
                              AttentionActivations& attention, Tensor& residual) {
  const int64_t d = c.d_model;
  norm = allocate_rms_norm(arena, B, Tq, d);
  attention = allocate_attention(arena, B, Tq, Tk, d, c.inner_dim(), c.num_heads, training);
  residual = arena.alloc({B, Tq, d}, DType::F32);
}

// T5LayerFF's: the RMSNorm, the feed-forward, the stream after it.
void allocate_layer_ff(const T5Config& c, Arena& arena, int64_t B, int64_t L,
                       RmsNormActivations& norm, T5FeedForwardActivations& ffn, Tensor& residual) {
  norm = allocate_rms_norm(arena, B, L, c.d_model);
  ffn = allocate_t5_feed_forward(c, arena, B, L);
  residual = arena.alloc({B, L, c.d_model}, DType::F32);
}

T5EncoderBlockActivations allocate_encoder_block(const T5Config& c, Arena& arena, int64_t B,
                                                 int64_t S, bool training) {
  T5EncoderBlockActivations l;
  allocate_layer_attention(c, arena, B, S, S, training, l.self_attn_norm, l.self_attn, l.residual1);
  allocate_layer_ff(c, arena, B, S, l.ffn_norm, l.ffn, l.residual2);
  return l;
}

T5DecoderBlockActivations allocate_decoder_block(const T5Config& c, Arena& arena, int64_t B,
                                                 int64_t S, int64_t T, bool training) {
  T5DecoderBlockActivations l;
  allocate_layer_attention(c, arena, B, T, T, training, l.self_attn_norm, l.self_attn, l.residual1);
  allocate_layer_attention(c, arena, B, T, S, training, l.cross_attn_norm, l.cross_attn,
                           l.residual2);
  allocate_layer_ff(c, arena, B, T, l.ffn_norm, l.ffn, l.residual3);
  return l;
}

}  // namespace

T5Activations allocate_activations(const T5Config& c, Arena& arena, int64_t B, int64_t S, int64_t T,
                                   bool training) {
  const int64_t d = c.d_model, H = c.num_heads;
  T5Activations a;
  a.batch = B;
  a.source_len = S;
  a.target_len = T;
  a.encoder_embedded = arena.alloc({B, S, d}, DType::F32);
  a.encoder_bias = arena.alloc({H, S, S}, DType::F32);
  a.encoder_blocks.resize(size_t(c.num_layers));
  for (auto& l : a.encoder_blocks) l = allocate_encoder_block(c, arena, B, S, training);
  a.encoder_final_norm = allocate_rms_norm(arena, B, S, d);
  a.decoder_embedded = arena.alloc({B, T, d}, DType::F32);
  a.decoder_bias = arena.alloc({H, T, T}, DType::F32);
  a.decoder_blocks.resize(size_t(c.num_decoder_layers));
  for (auto& l : a.decoder_blocks) l = allocate_decoder_block(c, arena, B, S, T, training);
  a.decoder_final_norm = allocate_rms_norm(arena, B, T, d);
  a.decoder_final_norm.rounded = Tensor{};  // the LM head reads head_input
  a.head_input = arena.alloc({B, T, d}, DType::F32);
  if (arena.element_type() != DType::F32) a.rounded_head_input = arena.alloc({B, T, d});
  a.logits = arena.alloc({B, T, c.vocab_size});
  a.losses = arena.alloc({B * T}, DType::F32);
  return a;
}

T5GradScratch allocate_grad_scratch(const T5Config& c, Arena& arena, int64_t B, int64_t S,
                                    int64_t T) {
  const int64_t L = std::max(S, T), d = c.d_model;
  T5GradScratch s;
  allocate_seq2seq_grad_scratch(s, arena, B, S, T, d, std::max(d, c.inner_dim()), DType::F32);
  s.d_normed = arena.alloc({B, L, d}, DType::F32);
  s.d_scores = arena.alloc({B, c.num_heads, L, L}, DType::F32);
  s.ffn = allocate_t5_feed_forward_grads(c, arena, B, L);
  return s;
}

}  // namespace precis
