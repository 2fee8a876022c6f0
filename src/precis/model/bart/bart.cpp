#include "precis/model/bart/bart.h"

#include "precis/model/bart/bart_dropout.h"

#include <algorithm>

#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/linear.h"
#include "precis/model/common/teacher_forcing.h"

namespace precis {

const Tensor& BartActivations::encoder_output() const {
  return encoder_layers.empty() ? encoder_layernorm_embedding.out
                                : encoder_layers.back().final_layer_norm.out;
}

const Tensor& BartActivations::decoder_output() const {
  return decoder_layers.empty() ? decoder_layernorm_embedding.out
                                : decoder_layers.back().final_layer_norm.out;
}

BartEncoderLayerActivations allocate_encoder_layer(const BartConfig& c, Arena& arena, int64_t B,
                                                   int64_t S, bool training) {
  const int64_t d = c.d_model;
  BartEncoderLayerActivations l;
  l.self_attn = allocate_attention(arena, B, S, S, d, c.encoder_attention_heads, training);
  l.residual1 = arena.alloc({B, S, d});
  l.self_attn_layer_norm = allocate_layer_norm(arena, B, S, d);
  l.ffn = allocate_feed_forward(arena, B, S, d, c.encoder_ffn_dim);
  l.residual2 = arena.alloc({B, S, d});
  l.final_layer_norm = allocate_layer_norm(arena, B, S, d);
  return l;
}

BartActivations allocate_activations(const BartConfig& c, Arena& arena, int64_t B, int64_t S,
                                     int64_t T, bool training) {
  const int64_t d = c.d_model;
  BartActivations a;
  a.batch = B;
  a.source_len = S;
  a.target_len = T;
  a.encoder_embedded = arena.alloc({B, S, d});
  a.encoder_layernorm_embedding = allocate_layer_norm(arena, B, S, d);
  a.encoder_layers.resize(size_t(c.encoder_layers));
  for (auto& l : a.encoder_layers) l = allocate_encoder_layer(c, arena, B, S, training);
  a.decoder_embedded = arena.alloc({B, T, d});
  a.decoder_layernorm_embedding = allocate_layer_norm(arena, B, T, d);
  a.decoder_layers.resize(size_t(c.decoder_layers));
  for (auto& l : a.decoder_layers) {
    l.self_attn = allocate_attention(arena, B, T, T, d, c.decoder_attention_heads, training);
    l.residual1 = arena.alloc({B, T, d});
    l.self_attn_layer_norm = allocate_layer_norm(arena, B, T, d);
    l.encoder_attn = allocate_attention(arena, B, T, S, d, c.decoder_attention_heads, training);
    l.residual2 = arena.alloc({B, T, d});
    l.encoder_attn_layer_norm = allocate_layer_norm(arena, B, T, d);
    l.ffn = allocate_feed_forward(arena, B, T, d, c.decoder_ffn_dim);
    l.residual3 = arena.alloc({B, T, d});
    l.final_layer_norm = allocate_layer_norm(arena, B, T, d);
  }
  a.logits = arena.alloc({B, T, c.vocab_size});
  a.losses = arena.alloc({B * T}, DType::F32);
  return a;
}

BartGradScratch allocate_grad_scratch(const BartConfig& c, Arena& arena, int64_t B, int64_t S,
                                      int64_t T) {
  const int64_t L = std::max(S, T), d = c.d_model;
  BartGradScratch s;
  s.d_hidden = arena.alloc({B, L, d});
  s.d_branch = arena.alloc({B, L, d});
  s.d_ffn = arena.alloc({B, L, std::max(c.encoder_ffn_dim, c.decoder_ffn_dim)});
  s.d_encoder_output = arena.alloc({B, S, d});
  s.attention = allocate_attention_grads(arena, B, L, L, d);
  return s;
}

void bart_forward(const BartConfig& c, const BartParams& p, const Seq2SeqBatch& batch,
                  BartActivations& a, const DropoutContext& ctx) {
  namespace drop = bart_dropout;
  check_batch_fits(batch, a.batch, a.source_len, a.target_len);
  const float eps = BartConfig::kLayerNormEps;

  // Encoder: embeddings, then post-LN layers.
  embedding_forward(batch.input_ids, p.shared, c.embed_scale(), a.encoder_embedded);
  add_position_embeddings(a.encoder_embedded, p.encoder_positions, BartConfig::kPositionOffset);
  layer_norm_forward(p.encoder_layernorm_embedding, a.encoder_embedded, eps,
                     a.encoder_layernorm_embedding);
  dropout_forward(a.encoder_layernorm_embedding.out, drop::embedding(c, ctx, drop::kEncoderEmbedding),
                  a.encoder_layernorm_embedding.out);
  AttentionMask source_mask{batch.attention_mask, false, 0, {}};
  const Tensor* h = &a.encoder_layernorm_embedding.out;
  for (size_t i = 0; i < a.encoder_layers.size(); ++i) {
    const auto& lp = p.encoder_layers[i];
    auto& la = a.encoder_layers[i];
    const uint32_t id = uint32_t(i);
    attention_block_forward(lp.self_attn, *h, *h, c.encoder_attention_heads, source_mask,
                            drop::attention(c, ctx, id), la.self_attn);
    add(*h, la.self_attn.out, la.residual1);
    layer_norm_forward(lp.self_attn_layer_norm, la.residual1, eps, la.self_attn_layer_norm);
    feed_forward_forward(lp.ffn, c.activation, la.self_attn_layer_norm.out,
                         drop::feed_forward(c, ctx, id), la.ffn);
    add(la.self_attn_layer_norm.out, la.ffn.fc2, la.residual2);
    layer_norm_forward(lp.final_layer_norm, la.residual2, eps, la.final_layer_norm);
    h = &la.final_layer_norm.out;
  }
  const Tensor& encoder_out = *h;

  // Decoder: causal self-attention, cross-attention over the encoder output, FFN.
  embedding_forward(batch.decoder_input_ids, p.shared, c.embed_scale(), a.decoder_embedded);
  add_position_embeddings(a.decoder_embedded, p.decoder_positions, BartConfig::kPositionOffset);
  layer_norm_forward(p.decoder_layernorm_embedding, a.decoder_embedded, eps,
                     a.decoder_layernorm_embedding);
  dropout_forward(a.decoder_layernorm_embedding.out, drop::embedding(c, ctx, drop::kDecoderEmbedding),
                  a.decoder_layernorm_embedding.out);
  AttentionMask causal{Tensor{}, true, 0, {}};
  h = &a.decoder_layernorm_embedding.out;
  for (size_t i = 0; i < a.decoder_layers.size(); ++i) {
    const auto& lp = p.decoder_layers[i];
    auto& la = a.decoder_layers[i];
    const uint32_t id = drop::kDecoder + uint32_t(i);
    attention_block_forward(lp.self_attn, *h, *h, c.decoder_attention_heads, causal,
                            drop::attention(c, ctx, id), la.self_attn);
    add(*h, la.self_attn.out, la.residual1);
    layer_norm_forward(lp.self_attn_layer_norm, la.residual1, eps, la.self_attn_layer_norm);
    attention_block_forward(lp.encoder_attn, la.self_attn_layer_norm.out, encoder_out,
                            c.decoder_attention_heads, source_mask,
                            drop::attention(c, ctx, id, true), la.encoder_attn);
    add(la.self_attn_layer_norm.out, la.encoder_attn.out, la.residual2);
    layer_norm_forward(lp.encoder_attn_layer_norm, la.residual2, eps, la.encoder_attn_layer_norm);
    feed_forward_forward(lp.ffn, c.activation, la.encoder_attn_layer_norm.out,
                         drop::feed_forward(c, ctx, id), la.ffn);
    add(la.encoder_attn_layer_norm.out, la.ffn.fc2, la.residual3);
    layer_norm_forward(lp.final_layer_norm, la.residual3, eps, la.final_layer_norm);
    h = &la.final_layer_norm.out;
  }

  // LM head: logits = h · lm_headᵀ + final_logits_bias.
  linear_forward(*h, p.lm_head, p.final_logits_bias.view({c.vocab_size}), a.logits);
}

CrossEntropyResult bart_loss(const Seq2SeqBatch& batch, BartActivations& a, float label_smoothing) {
  return teacher_forced_loss(batch, a.logits, a.losses, label_smoothing);
}

}  // namespace precis
