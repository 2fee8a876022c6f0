#include "precis/model/t5/t5.h"

#include <algorithm>

#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/linear.h"
#include "precis/kernels/relative_position.h"
#include "precis/kernels/rms_norm.h"
#include "precis/model/t5/t5_dropout.h"
#include "precis/model/common/teacher_forcing.h"

namespace precis {

T5Activations allocate_activations(const T5Config& c, Arena& arena, int64_t B, int64_t S,
                                   int64_t T, bool training) {
  const int64_t d = c.d_model, inner = c.inner_dim(), H = c.num_heads;
  T5Activations a;
  a.batch = B;
  a.source_len = S;
  a.target_len = T;
  a.encoder_embedded = arena.alloc({B, S, d});
  a.encoder_bias = arena.alloc({H, S, S}, DType::F32);
  a.encoder_blocks.resize(size_t(c.num_layers));
  for (auto& l : a.encoder_blocks) {
    l.self_attn_norm = allocate_rms_norm(arena, B, S, d);
    l.self_attn = allocate_attention(arena, B, S, S, d, inner, H, training);
    l.residual1 = arena.alloc({B, S, d});
    l.ffn_norm = allocate_rms_norm(arena, B, S, d);
    l.ffn = allocate_t5_feed_forward(c, arena, B, S);
    l.residual2 = arena.alloc({B, S, d});
  }
  a.encoder_final_norm = allocate_rms_norm(arena, B, S, d);
  a.decoder_embedded = arena.alloc({B, T, d});
  a.decoder_bias = arena.alloc({H, T, T}, DType::F32);
  a.decoder_blocks.resize(size_t(c.num_decoder_layers));
  for (auto& l : a.decoder_blocks) {
    l.self_attn_norm = allocate_rms_norm(arena, B, T, d);
    l.self_attn = allocate_attention(arena, B, T, T, d, inner, H, training);
    l.residual1 = arena.alloc({B, T, d});
    l.cross_attn_norm = allocate_rms_norm(arena, B, T, d);
    l.cross_attn = allocate_attention(arena, B, T, S, d, inner, H, training);
    l.residual2 = arena.alloc({B, T, d});
    l.ffn_norm = allocate_rms_norm(arena, B, T, d);
    l.ffn = allocate_t5_feed_forward(c, arena, B, T);
    l.residual3 = arena.alloc({B, T, d});
  }
  a.decoder_final_norm = allocate_rms_norm(arena, B, T, d);
  a.head_input = arena.alloc({B, T, d});
  a.logits = arena.alloc({B, T, c.vocab_size});
  a.losses = arena.alloc({B * T}, DType::F32);
  return a;
}

T5GradScratch allocate_grad_scratch(const T5Config& c, Arena& arena, int64_t B, int64_t S,
                                    int64_t T) {
  const int64_t L = std::max(S, T), d = c.d_model;
  T5GradScratch s;
  s.d_hidden = arena.alloc({B, L, d});
  s.d_branch = arena.alloc({B, L, d});
  s.d_normed = arena.alloc({B, L, d});
  s.d_encoder_output = arena.alloc({B, S, d});
  s.d_scores = arena.alloc({B, c.num_heads, L, L}, DType::F32);
  s.ffn = allocate_t5_feed_forward_grads(c, arena, B, L);
  s.attention = allocate_attention_grads(arena, B, L, L, std::max(d, c.inner_dim()));
  return s;
}

void t5_encoder_forward(const T5Config& c, const T5Params& p, const Tensor& input_ids,
                        const Tensor& attention_mask, T5Activations& a,
                        const DropoutContext& ctx) {
  namespace drop = t5_dropout;
  const float eps = float(c.layer_norm_epsilon);
  const int64_t H = c.num_heads;
  const AttentionScaling unscaled = AttentionScaling::none();

  // Encoder: h = dropout(embed(ids)); per block h += SelfAttn(norm(h)); h += FF(norm(h)).
  embedding_forward(input_ids, p.shared, 1.0f, a.encoder_embedded);
  dropout_forward(a.encoder_embedded, drop::embedding(c, ctx, drop::kEncoderEmbedding),
                  a.encoder_embedded);
  relative_position_bias_forward(p.encoder_relative_bias, c.buckets(false), 0, a.encoder_bias);
  AttentionMask source_mask{attention_mask, false, 0, a.encoder_bias};
  const Tensor* h = &a.encoder_embedded;
  for (size_t i = 0; i < a.encoder_blocks.size(); ++i) {
    const auto& lp = p.encoder_blocks[i];
    auto& la = a.encoder_blocks[i];
    const uint32_t id = uint32_t(i);
    rms_norm_forward(*h, lp.self_attn_norm, eps, la.self_attn_norm.out, la.self_attn_norm.rstd);
    attention_block_forward(lp.self_attn, la.self_attn_norm.out, la.self_attn_norm.out, H,
                            source_mask, drop::attention(c, ctx, id), la.self_attn, unscaled);
    add(*h, la.self_attn.out, la.residual1);
    rms_norm_forward(la.residual1, lp.ffn_norm, eps, la.ffn_norm.out, la.ffn_norm.rstd);
    t5_feed_forward_forward(c, lp.ffn, la.ffn_norm.out, drop::feed_forward(c, ctx, id), la.ffn);
    add(la.residual1, la.ffn.ff.fc2, la.residual2);
    h = &la.residual2;
  }
  rms_norm_forward(*h, p.encoder_final_norm, eps, a.encoder_final_norm.out,
                   a.encoder_final_norm.rstd);
  dropout_forward(a.encoder_final_norm.out, drop::final_norm(c, ctx, drop::kEncoderEmbedding),
                  a.encoder_final_norm.out);
}

void t5_forward(const T5Config& c, const T5Params& p, const Seq2SeqBatch& batch, T5Activations& a,
                const DropoutContext& ctx) {
  namespace drop = t5_dropout;
  check_batch_fits(batch, a.batch, a.source_len, a.target_len);
  const float eps = float(c.layer_norm_epsilon);
  const int64_t H = c.num_heads;
  const AttentionScaling unscaled = AttentionScaling::none();

  t5_encoder_forward(c, p, batch.input_ids, batch.attention_mask, a, ctx);
  const Tensor& encoder_out = a.encoder_output();

  // Decoder: causal self-attention with its own bias, cross-attention without one, FF.
  embedding_forward(batch.decoder_input_ids, p.shared, 1.0f, a.decoder_embedded);
  dropout_forward(a.decoder_embedded, drop::embedding(c, ctx, drop::kDecoderEmbedding),
                  a.decoder_embedded);
  relative_position_bias_forward(p.decoder_relative_bias, c.buckets(true), 0, a.decoder_bias);
  AttentionMask causal{Tensor{}, true, 0, a.decoder_bias};
  AttentionMask cross_mask{batch.attention_mask, false, 0, Tensor{}};
  const Tensor* h = &a.decoder_embedded;
  for (size_t i = 0; i < a.decoder_blocks.size(); ++i) {
    const auto& lp = p.decoder_blocks[i];
    auto& la = a.decoder_blocks[i];
    const uint32_t id = drop::kDecoder + uint32_t(i);
    rms_norm_forward(*h, lp.self_attn_norm, eps, la.self_attn_norm.out, la.self_attn_norm.rstd);
    attention_block_forward(lp.self_attn, la.self_attn_norm.out, la.self_attn_norm.out, H, causal,
                            drop::attention(c, ctx, id), la.self_attn, unscaled);
    add(*h, la.self_attn.out, la.residual1);
    rms_norm_forward(la.residual1, lp.cross_attn_norm, eps, la.cross_attn_norm.out,
                     la.cross_attn_norm.rstd);
    attention_block_forward(lp.cross_attn, la.cross_attn_norm.out, encoder_out, H, cross_mask,
                            drop::attention(c, ctx, id, true), la.cross_attn, unscaled);
    add(la.residual1, la.cross_attn.out, la.residual2);
    rms_norm_forward(la.residual2, lp.ffn_norm, eps, la.ffn_norm.out, la.ffn_norm.rstd);
    t5_feed_forward_forward(c, lp.ffn, la.ffn_norm.out, drop::feed_forward(c, ctx, id), la.ffn);
    add(la.residual2, la.ffn.ff.fc2, la.residual3);
    h = &la.residual3;
  }
  rms_norm_forward(*h, p.decoder_final_norm, eps, a.decoder_final_norm.out,
                   a.decoder_final_norm.rstd);
  dropout_forward(a.decoder_final_norm.out, drop::final_norm(c, ctx, drop::kDecoderEmbedding),
                  a.decoder_final_norm.out);

  // LM head: logits = (h · d_model^-0.5 when tied) · lm_headᵀ.
  copy(a.decoder_final_norm.out, a.head_input);
  if (c.tie_word_embeddings) scale_in_place(a.head_input, c.lm_head_scale());
  linear_forward(a.head_input, p.lm_head, Tensor{}, a.logits);
}

CrossEntropyResult t5_loss(const Seq2SeqBatch& batch, T5Activations& a, float label_smoothing) {
  return teacher_forced_loss(batch, a.logits, a.losses, label_smoothing);
}

}  // namespace precis
