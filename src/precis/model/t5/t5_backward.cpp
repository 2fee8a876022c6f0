// T5's backward: t5.cpp's forward in reverse. Parameter gradients accumulate (+=) into `g`;
// activation gradients live in the scratch. The residual stream's gradient `dh` gathers each
// sub-layer's branch: dh += norm_backward(branch_backward(dh)). Each self-attention's score
// gradient flows into its stack's relative bias table (shared by all blocks).
#include "precis/kernels/convert.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/fill.h"
#include "precis/kernels/relative_position.h"
#include "precis/kernels/rms_norm.h"
#include "precis/model/common/teacher_forcing.h"
#include "precis/model/t5/t5.h"
#include "precis/model/t5/t5_dropout.h"
#include "precis/model/t5/t5_stages.h"

namespace precis {

namespace {

// What the backward of every block of one stack works with: the stack's gradient buffers,
// cut to its (B, L, ...) shapes, and the step's config, dropout context and scratch.
struct T5StackBackward {
  const T5Config& c;
  const DropoutContext& ctx;
  T5GradScratch& s;
  Tensor dh;       // (B, L, d) gradient of the residual stream (F32)
  Tensor dbranch;  // (B, L, d) gradient of a sub-layer's output branch, of the compute type
  Tensor dnormed;  // (B, L, d) gradient of a sub-layer's normalised input (F32)
  Tensor dscores;  // (B, H, L, L) a self-attention's score gradient, for the bias
};

T5StackBackward stack_backward(const T5Config& c, const DropoutContext& ctx, T5GradScratch& s,
                               int64_t B, int64_t L) {
  const int64_t d = c.d_model;
  return {c,
          ctx,
          s,
          s.d_hidden.prefix({B, L, d}),
          (s.d_branch16.ptr ? s.d_branch16 : s.d_branch).prefix({B, L, d}),
          s.d_normed.prefix({B, L, d}),
          s.d_scores.prefix({B, c.num_heads, L, L})};
}

// A pre-norm sub-layer, h_out = h_in + branch(norm(h_in)), in reverse: dh holds h_out's
// gradient and leaves with h_in's. `branch_backward` turns the branch output's gradient, in
// dbranch, into that of norm(h_in), in dnormed. Under mixed precision dbranch is dh rounded to
// 16 bits (the backward of torch's promotion) and the branch's shares of norm(h_in) sum in fp32.
template <class BranchBackward>
void pre_norm_sublayer_backward(const T5StackBackward& sb, const Tensor& h_in,
                                const Tensor& norm_weight, const RmsNormActivations& norm,
                                const Tensor& g_norm, BranchBackward branch_backward) {
  if (sb.dbranch.dtype == sb.dh.dtype)
    copy(sb.dh, sb.dbranch);
  else
    convert(sb.dh, sb.dbranch);
  branch_backward();
  rms_norm_backward(sb.dnormed, h_in, norm_weight, norm.rstd, sb.dnormed, g_norm);
  add_into(sb.dnormed, sb.dh);
}

// T5LayerSelfAttention of either stack's blocks (their self_attn_norm and self_attn), with the
// stack's relative position bias, whose table gathers the scores' gradient.
template <class BlockParams, class BlockActivations>
void layer_self_attention_backward(const T5StackBackward& sb, const BlockParams& lp,
                                   BlockActivations& la, BlockParams& lg, const Tensor& h_in,
                                   bool decoder, uint32_t id, const Tensor& g_bias_table) {
  pre_norm_sublayer_backward(
      sb, h_in, lp.self_attn_norm, la.self_attn_norm, lg.self_attn_norm, [&] {
        const Tensor& normed = la.self_attn_norm.linear_input();
        attention_block_backward(lp.self_attn, normed, normed, sb.c.num_heads,
                                 t5_dropout::attention(sb.c, sb.ctx, id), la.self_attn, sb.dbranch,
                                 sb.s.attention, lg.self_attn, sb.dnormed, Tensor{}, true,
                                 AttentionScaling::none(), sb.dscores);
        relative_position_bias_backward(sb.dscores, sb.c.buckets(decoder), 0, g_bias_table);
      });
}

// T5LayerFF of either stack's blocks (their ffn_norm and ffn).
template <class BlockParams, class BlockActivations>
void layer_ff_backward(const T5StackBackward& sb, const BlockParams& lp, BlockActivations& la,
                       BlockParams& lg, const Tensor& h_in, uint32_t id) {
  pre_norm_sublayer_backward(sb, h_in, lp.ffn_norm, la.ffn_norm, lg.ffn_norm, [&] {
    t5_feed_forward_backward(sb.c, lp.ffn, la.ffn_norm.linear_input(),
                             t5_dropout::feed_forward(sb.c, sb.ctx, id), la.ffn, sb.dbranch,
                             sb.s.ffn, lg.ffn, sb.dnormed);
  });
}

// An encoder block in reverse: dh, the gradient of its output, becomes that of `input`.
void encoder_block_backward(const T5StackBackward& sb, const T5EncoderBlockParams& lp,
                            T5EncoderBlockActivations& la, T5EncoderBlockParams& lg,
                            const Tensor& input, const Tensor& g_bias_table, uint32_t id) {
  layer_ff_backward(sb, lp, la, lg, la.residual1, id);
  layer_self_attention_backward(sb, lp, la, lg, input, false, id, g_bias_table);
}

// A decoder block in reverse: an encoder block's with T5LayerCrossAttention between its two
// sub-layers, whose keys' and values' share goes to denc (+=).
void decoder_block_backward(const T5StackBackward& sb, const T5DecoderBlockParams& lp,
                            T5DecoderBlockActivations& la, T5DecoderBlockParams& lg,
                            const Tensor& input, const RmsNormActivations& encoder_out,
                            const Tensor& denc, const Tensor& g_bias_table, uint32_t id) {
  layer_ff_backward(sb, lp, la, lg, la.residual2, id);
  // r2 = r1 + Cross(norm(r1), enc)
  pre_norm_sublayer_backward(
      sb, la.residual1, lp.cross_attn_norm, la.cross_attn_norm, lg.cross_attn_norm, [&] {
        attention_block_backward(lp.cross_attn, la.cross_attn_norm.linear_input(),
                                 encoder_out.linear_input(), sb.c.num_heads,
                                 t5_dropout::attention(sb.c, sb.ctx, id, true), la.cross_attn,
                                 sb.dbranch, sb.s.attention, lg.cross_attn, sb.dnormed, denc, false,
                                 AttentionScaling::none());
      });
  layer_self_attention_backward(sb, lp, la, lg, input, true, id, g_bias_table);
}

// A stack's out = dropout(final_norm(last)) in reverse: dh becomes last's gradient.
void final_norm_backward(const T5StackBackward& sb, const Tensor& last, const Tensor& weight,
                         const RmsNormActivations& norm, uint32_t stack, const Tensor& g_weight) {
  dropout_backward(sb.dh, t5_dropout::final_norm(sb.c, sb.ctx, stack), sb.dh);
  rms_norm_backward(sb.dh, last, weight, norm.rstd, sb.dh, g_weight);
}

// A stack's embedded = dropout(embed(ids)) in reverse, into the shared embedding's gradient.
void embeddings_backward(const T5StackBackward& sb, const Tensor& ids, uint32_t stack,
                         const Tensor& g_shared, CheckedIds known) {
  dropout_backward(sb.dh, t5_dropout::embedding(sb.c, sb.ctx, stack), sb.dh);
  embedding_backward(sb.dh, ids, 1.0f, -1, g_shared, known);
}

}  // namespace

void t5_backward(const T5Config& c, const T5Params& p, const Seq2SeqBatch& batch, T5Activations& a,
                 const DropoutContext& ctx, float label_smoothing, float loss_scale, T5Params& g,
                 T5GradScratch& s) {
  namespace drop = t5_dropout;
  const int64_t B = a.batch, S = a.source_len, T = a.target_len;
  const T5StackBackward dec = stack_backward(c, ctx, s, B, T);
  const Tensor denc = s.zeroed_encoder_output_grad(B, S, c.d_model);

  // Loss and LM head: logits = head_input · lm_headᵀ, head_input = out · lm_head_scale.
  teacher_forced_loss_backward(batch, a.logits, a.head_linear_input(), p.lm_head, label_smoothing,
                               loss_scale, dec.dh, g.lm_head);
  if (c.tie_word_embeddings) scale_in_place(dec.dh, c.lm_head_scale());
  final_norm_backward(
      dec, a.decoder_blocks.empty() ? a.decoder_embedded : a.decoder_blocks.back().residual3,
      p.decoder_final_norm, a.decoder_final_norm, drop::kDecoderEmbedding, g.decoder_final_norm);
  s.end_stage(t5_stages::decoder_head());
  for (size_t i = a.decoder_blocks.size(); i-- > 0;) {
    const Tensor& input = i == 0 ? a.decoder_embedded : a.decoder_blocks[i - 1].residual3;
    decoder_block_backward(dec, p.decoder_blocks[i], a.decoder_blocks[i], g.decoder_blocks[i],
                           input, a.encoder_final_norm, denc, g.decoder_relative_bias,
                           drop::kDecoder + uint32_t(i));
    s.end_stage(t5_stages::decoder_block(c, int64_t(i)));
  }
  embeddings_backward(dec, batch.decoder_input_ids, drop::kDecoderEmbedding, g.shared,
                      batch.ids_checked);

  // Encoder, from the cross-attentions' gradient of its (dropped-out, normalised) output.
  const T5StackBackward enc = stack_backward(c, ctx, s, B, S);
  copy(denc, enc.dh);
  final_norm_backward(
      enc, a.encoder_blocks.empty() ? a.encoder_embedded : a.encoder_blocks.back().residual2,
      p.encoder_final_norm, a.encoder_final_norm, drop::kEncoderEmbedding, g.encoder_final_norm);
  s.end_stage(t5_stages::encoder_final_norm(c));
  for (size_t i = a.encoder_blocks.size(); i-- > 0;) {
    const Tensor& input = i == 0 ? a.encoder_embedded : a.encoder_blocks[i - 1].residual2;
    encoder_block_backward(enc, p.encoder_blocks[i], a.encoder_blocks[i], g.encoder_blocks[i],
                           input, g.encoder_relative_bias, uint32_t(i));
    s.end_stage(t5_stages::encoder_block(c, int64_t(i)));
  }
  embeddings_backward(enc, batch.input_ids, drop::kEncoderEmbedding, g.shared, batch.ids_checked);
}

}  // namespace precis
