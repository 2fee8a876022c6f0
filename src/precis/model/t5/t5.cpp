// T5's forward (t5.h): embeddings, pre-norm encoder and decoder blocks with their stacks'
// relative position biases, final norms, the LM head. The activations it fills are laid out by
// t5_activations.cpp; t5_backward.cpp runs it in reverse.
#include "precis/model/t5/t5.h"

#include "precis/kernels/convert.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/linear.h"
#include "precis/kernels/relative_position.h"
#include "precis/kernels/rms_norm.h"
#include "precis/model/common/teacher_forcing.h"
#include "precis/model/t5/t5_dropout.h"

namespace precis {

namespace {

// h = dropout(embed(ids)) into `embedded`, and the stack's relative position bias into `bias`.
void stack_embeddings_forward(const T5Config& c, const Tensor& ids, const Tensor& shared,
                              const Tensor& bias_table, bool decoder, const DropoutSpec& dropout,
                              const Tensor& embedded, const Tensor& bias, CheckedIds known) {
  embedding_forward(ids, shared, 1.0f, embedded, known);
  dropout_forward(embedded, dropout, embedded);
  relative_position_bias_forward(bias_table, c.buckets(decoder), 0, bias);
}

// norm(h) into norm.out, and rounded for the linear layers under mixed precision.
void norm_forward(const T5Config& c, const Tensor& h, const Tensor& weight,
                  RmsNormActivations& norm) {
  rms_norm_forward(h, weight, float(c.layer_norm_epsilon), norm.out, norm.rstd, norm.rounded);
}

// h_out = h + branch, in h's type (fp32 under mixed precision, the 16-bit branch widened as
// torch promotes it).
void join_stream(const Tensor& h, const Tensor& branch, const Tensor& h_out) {
  if (branch.dtype == h_out.dtype)
    add(h, branch, h_out);
  else
    add_to_fp32(h, branch, h_out);
}

// T5LayerSelfAttention of either stack's blocks: residual1 = h + SelfAttn(norm(h)).
template <class BlockParams, class BlockActivations>
void layer_self_attention_forward(const T5Config& c, const BlockParams& lp, BlockActivations& la,
                                  const Tensor& h, const AttentionMask& mask,
                                  const BlockDropout& dropout) {
  norm_forward(c, h, lp.self_attn_norm, la.self_attn_norm);
  const Tensor& normed = la.self_attn_norm.linear_input();
  attention_block_forward(lp.self_attn, normed, normed, c.num_heads, mask, dropout, la.self_attn,
                          AttentionScaling::none());
  join_stream(h, la.self_attn.out, la.residual1);
}

// T5LayerFF of either stack's blocks: h_out = h + FF(norm(h)).
template <class BlockParams, class BlockActivations>
void layer_ff_forward(const T5Config& c, const BlockParams& lp, BlockActivations& la,
                      const Tensor& h, const BlockDropout& dropout, const Tensor& h_out) {
  norm_forward(c, h, lp.ffn_norm, la.ffn_norm);
  t5_feed_forward_forward(c, lp.ffn, la.ffn_norm.linear_input(), dropout, la.ffn);
  join_stream(h, la.ffn.ff.fc2, h_out);
}

// A stack's output: dropout(final_norm(h)) into norm.out (and rounded, where defined, for the
// cross-attention's keys and values).
void final_norm_forward(const T5Config& c, const Tensor& h, const Tensor& weight,
                        const DropoutSpec& dropout, RmsNormActivations& norm) {
  rms_norm_forward(h, weight, float(c.layer_norm_epsilon), norm.out, norm.rstd);
  dropout_forward(norm.out, dropout, norm.out);
  if (norm.rounded.ptr) convert(norm.out, norm.rounded);
}

// An encoder block: T5LayerSelfAttention with the encoder's bias, T5LayerFF.
void encoder_block_forward(const T5Config& c, const T5EncoderBlockParams& lp,
                           T5EncoderBlockActivations& la, const Tensor& h,
                           const AttentionMask& source_mask, const DropoutContext& ctx,
                           uint32_t id) {
  layer_self_attention_forward(c, lp, la, h, source_mask, t5_dropout::attention(c, ctx, id));
  layer_ff_forward(c, lp, la, la.residual1, t5_dropout::feed_forward(c, ctx, id), la.residual2);
}

// A decoder block: causal self-attention with the decoder's bias, T5LayerCrossAttention over
// the encoder output (no bias), T5LayerFF.
void decoder_block_forward(const T5Config& c, const T5DecoderBlockParams& lp,
                           T5DecoderBlockActivations& la, const Tensor& h,
                           const RmsNormActivations& encoder_out, const AttentionMask& causal,
                           const AttentionMask& cross_mask, const DropoutContext& ctx,
                           uint32_t id) {
  layer_self_attention_forward(c, lp, la, h, causal, t5_dropout::attention(c, ctx, id));
  norm_forward(c, la.residual1, lp.cross_attn_norm, la.cross_attn_norm);
  attention_block_forward(
      lp.cross_attn, la.cross_attn_norm.linear_input(), encoder_out.linear_input(), c.num_heads,
      cross_mask, t5_dropout::attention(c, ctx, id, true), la.cross_attn, AttentionScaling::none());
  join_stream(la.residual1, la.cross_attn.out, la.residual2);
  layer_ff_forward(c, lp, la, la.residual2, t5_dropout::feed_forward(c, ctx, id), la.residual3);
}

}  // namespace

void t5_encoder_forward(const T5Config& c, const T5Params& p, const Tensor& input_ids,
                        const Tensor& attention_mask, T5Activations& a, const DropoutContext& ctx,
                        CheckedIds known) {
  namespace drop = t5_dropout;

  // Encoder: h = dropout(embed(ids)); per block h += SelfAttn(norm(h)); h += FF(norm(h)).
  stack_embeddings_forward(c, input_ids, p.shared, p.encoder_relative_bias, false,
                           drop::embedding(c, ctx, drop::kEncoderEmbedding), a.encoder_embedded,
                           a.encoder_bias, known);
  AttentionMask source_mask{.key_padding = attention_mask, .position_bias = a.encoder_bias};
  const Tensor* h = &a.encoder_embedded;
  for (size_t i = 0; i < a.encoder_blocks.size(); ++i) {
    encoder_block_forward(c, p.encoder_blocks[i], a.encoder_blocks[i], *h, source_mask, ctx,
                          uint32_t(i));
    h = &a.encoder_blocks[i].residual2;
  }
  final_norm_forward(c, *h, p.encoder_final_norm, drop::final_norm(c, ctx, drop::kEncoderEmbedding),
                     a.encoder_final_norm);
}

void t5_forward(const T5Config& c, const T5Params& p, const Seq2SeqBatch& batch, T5Activations& a,
                const DropoutContext& ctx) {
  namespace drop = t5_dropout;
  check_batch_fits(batch, a.batch, a.source_len, a.target_len);

  t5_encoder_forward(c, p, batch.input_ids, batch.attention_mask, a, ctx, batch.ids_checked);

  // Decoder: causal self-attention with its own bias, cross-attention without one, FF.
  stack_embeddings_forward(c, batch.decoder_input_ids, p.shared, p.decoder_relative_bias, true,
                           drop::embedding(c, ctx, drop::kDecoderEmbedding), a.decoder_embedded,
                           a.decoder_bias, batch.ids_checked);
  AttentionMask causal{.causal = true, .position_bias = a.decoder_bias};
  AttentionMask cross_mask{.key_padding = batch.attention_mask};
  const Tensor* h = &a.decoder_embedded;
  for (size_t i = 0; i < a.decoder_blocks.size(); ++i) {
    decoder_block_forward(c, p.decoder_blocks[i], a.decoder_blocks[i], *h, a.encoder_final_norm,
                          causal, cross_mask, ctx, drop::kDecoder + uint32_t(i));
    h = &a.decoder_blocks[i].residual3;
  }
  final_norm_forward(c, *h, p.decoder_final_norm, drop::final_norm(c, ctx, drop::kDecoderEmbedding),
                     a.decoder_final_norm);

  // LM head: logits = (h · d_model^-0.5 when tied) · lm_headᵀ, its input rounded under mixed
  // precision.
  copy(a.decoder_final_norm.out, a.head_input);
  if (c.tie_word_embeddings) scale_in_place(a.head_input, c.lm_head_scale());
  if (a.rounded_head_input.ptr) convert(a.head_input, a.rounded_head_input);
  linear_forward(a.head_linear_input(), p.lm_head, Tensor{}, a.logits);
}

}  // namespace precis
