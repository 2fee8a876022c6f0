// T5's backward: t5.cpp's forward in reverse. Parameter gradients accumulate (+=) into `g`;
// activation gradients live in the scratch. The residual stream's gradient `dh` gathers each
// sub-layer's branch: dh += norm_backward(branch_backward(dh)). Each self-attention's score
// gradient flows into its stack's relative bias table (shared by all blocks).
#include "precis/kernels/copy.h"
#include "precis/kernels/fill.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/linear.h"
#include "precis/kernels/relative_position.h"
#include "precis/kernels/rms_norm.h"
#include "precis/model/t5/t5.h"
#include "precis/model/t5/t5_dropout.h"
#include "precis/model/t5/t5_stages.h"

namespace precis {

namespace {

// Buffers of one stack's backward, cut to its (B, L, ...) shapes.
struct StackGrads {
  Tensor dh, dbranch, dnormed, dscores;
};

StackGrads stack_grads(const T5Config& c, T5GradScratch& s, int64_t B, int64_t L) {
  const int64_t d = c.d_model;
  return {s.d_hidden.prefix({B, L, d}), s.d_branch.prefix({B, L, d}), s.d_normed.prefix({B, L, d}),
          s.d_scores.prefix({B, c.num_heads, L, L})};
}

// dh += (norm input's gradient) given dnormed, the gradient of norm(x)'s output.
void norm_backward_into(const Tensor& x, const Tensor& weight, const RmsNormActivations& a,
                        const Tensor& dnormed, const Tensor& dweight, const Tensor& dh) {
  rms_norm_backward(dnormed, x, weight, a.rstd, dnormed, dweight);
  add_into(dnormed, dh);
}

// A self-attention sub-layer: h_out = h_in + Attn(norm(h_in)) with the stack's bias.
void self_attention_backward(const T5Config& c, const Tensor& h_in, const Tensor& norm_weight,
                             const RmsNormActivations& norm, const AttentionParams& p,
                             AttentionActivations& a, const BlockDropout& dropout,
                             const RelativePositionBuckets& buckets, StackGrads& sg,
                             T5GradScratch& s, Tensor& g_norm, AttentionParams& g,
                             const Tensor& g_bias_table) {
  copy(sg.dh, sg.dbranch);
  attention_block_backward(p, norm.out, norm.out, c.num_heads, dropout, a, sg.dbranch, s.attention,
                           g, sg.dnormed, Tensor{}, true, AttentionScaling::none(), sg.dscores);
  relative_position_bias_backward(sg.dscores, buckets, 0, g_bias_table);
  norm_backward_into(h_in, norm_weight, norm, sg.dnormed, g_norm, sg.dh);
}

void feed_forward_backward(const T5Config& c, const Tensor& h_in, const Tensor& norm_weight,
                           const RmsNormActivations& norm, const T5FeedForwardParams& p,
                           T5FeedForwardActivations& a, const BlockDropout& dropout,
                           StackGrads& sg, T5GradScratch& s, Tensor& g_norm,
                           T5FeedForwardParams& g) {
  copy(sg.dh, sg.dbranch);
  t5_feed_forward_backward(c, p, norm.out, dropout, a, sg.dbranch, s.ffn, g, sg.dnormed);
  norm_backward_into(h_in, norm_weight, norm, sg.dnormed, g_norm, sg.dh);
}

}  // namespace

void t5_backward(const T5Config& c, const T5Params& p, const Seq2SeqBatch& batch,
                 T5Activations& a, const DropoutContext& ctx, float label_smoothing,
                 float loss_scale, T5Params& g, T5GradScratch& s) {
  namespace drop = t5_dropout;
  check(batch.labels.ptr != nullptr, "the backward needs labels");
  const int64_t B = a.batch, S = a.source_len, T = a.target_len;
  Tensor denc = s.d_encoder_output.prefix({B, S, c.d_model});
  zero(denc);

  // Loss and LM head: logits = head_input · lm_headᵀ, head_input = out · lm_head_scale.
  StackGrads sg = stack_grads(c, s, B, T);
  Tensor logits = a.logits.view({B * T, c.vocab_size});
  cross_entropy_backward(logits, batch.labels.view({B * T}), label_smoothing, loss_scale, logits);
  linear_backward(a.logits, a.head_input, p.lm_head, sg.dh, g.lm_head, Tensor{});
  if (c.tie_word_embeddings) scale_in_place(sg.dh, c.lm_head_scale());
  // out = dropout(final_norm(h_L))
  const Tensor& dec_last = a.decoder_blocks.empty() ? a.decoder_embedded
                                                    : a.decoder_blocks.back().residual3;
  dropout_backward(sg.dh, drop::final_norm(c, ctx, drop::kDecoderEmbedding), sg.dh);
  rms_norm_backward(sg.dh, dec_last, p.decoder_final_norm, a.decoder_final_norm.rstd, sg.dh,
                    g.decoder_final_norm);
  auto stage_done = [&](int stage) {
    if (s.stage_done) s.stage_done(stage);
  };
  stage_done(t5_stages::decoder_head());

  for (size_t i = a.decoder_blocks.size(); i-- > 0;) {
    const auto& lp = p.decoder_blocks[i];
    auto& la = a.decoder_blocks[i];
    auto& lg = g.decoder_blocks[i];
    const uint32_t id = drop::kDecoder + uint32_t(i);
    const Tensor& input = i == 0 ? a.decoder_embedded : a.decoder_blocks[i - 1].residual3;
    feed_forward_backward(c, la.residual2, lp.ffn_norm, la.ffn_norm, lp.ffn, la.ffn,
                          drop::feed_forward(c, ctx, id), sg, s, lg.ffn_norm, lg.ffn);
    // r2 = r1 + Cross(norm(r1), enc): the keys' and values' share goes to denc.
    copy(sg.dh, sg.dbranch);
    attention_block_backward(lp.cross_attn, la.cross_attn_norm.out, a.encoder_output(), c.num_heads,
                             drop::attention(c, ctx, id, true), la.cross_attn, sg.dbranch,
                             s.attention, lg.cross_attn, sg.dnormed, denc, false,
                             AttentionScaling::none());
    norm_backward_into(la.residual1, lp.cross_attn_norm, la.cross_attn_norm, sg.dnormed,
                       lg.cross_attn_norm, sg.dh);
    self_attention_backward(c, input, lp.self_attn_norm, la.self_attn_norm, lp.self_attn,
                            la.self_attn, drop::attention(c, ctx, id), c.buckets(true), sg, s,
                            lg.self_attn_norm, lg.self_attn, g.decoder_relative_bias);
    stage_done(t5_stages::decoder_block(c, int64_t(i)));
  }
  dropout_backward(sg.dh, drop::embedding(c, ctx, drop::kDecoderEmbedding), sg.dh);
  embedding_backward(sg.dh, batch.decoder_input_ids, 1.0f, -1, g.shared);

  // Encoder, from the cross-attentions' gradient of its (dropped-out, normalised) output.
  sg = stack_grads(c, s, B, S);
  copy(denc, sg.dh);
  const Tensor& enc_last = a.encoder_blocks.empty() ? a.encoder_embedded
                                                    : a.encoder_blocks.back().residual2;
  dropout_backward(sg.dh, drop::final_norm(c, ctx, drop::kEncoderEmbedding), sg.dh);
  rms_norm_backward(sg.dh, enc_last, p.encoder_final_norm, a.encoder_final_norm.rstd, sg.dh,
                    g.encoder_final_norm);
  stage_done(t5_stages::encoder_final_norm(c));
  for (size_t i = a.encoder_blocks.size(); i-- > 0;) {
    const auto& lp = p.encoder_blocks[i];
    auto& la = a.encoder_blocks[i];
    auto& lg = g.encoder_blocks[i];
    const uint32_t id = uint32_t(i);
    const Tensor& input = i == 0 ? a.encoder_embedded : a.encoder_blocks[i - 1].residual2;
    feed_forward_backward(c, la.residual1, lp.ffn_norm, la.ffn_norm, lp.ffn, la.ffn,
                          drop::feed_forward(c, ctx, id), sg, s, lg.ffn_norm, lg.ffn);
    self_attention_backward(c, input, lp.self_attn_norm, la.self_attn_norm, lp.self_attn,
                            la.self_attn, drop::attention(c, ctx, id), c.buckets(false), sg, s,
                            lg.self_attn_norm, lg.self_attn, g.encoder_relative_bias);
    stage_done(t5_stages::encoder_block(c, int64_t(i)));
  }
  dropout_backward(sg.dh, drop::embedding(c, ctx, drop::kEncoderEmbedding), sg.dh);
  embedding_backward(sg.dh, batch.input_ids, 1.0f, -1, g.shared);
}

}  // namespace precis
