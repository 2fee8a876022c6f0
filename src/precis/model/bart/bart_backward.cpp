// BART's backward: the forward of bart.cpp in reverse, layer by layer. Parameter gradients
// accumulate (+=) into `g`; activation gradients are written into the scratch buffers.
// The tied embedding collects three contributions: the LM head and both token lookups.
#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/fill.h"
#include "precis/model/bart/bart.h"
#include "precis/model/bart/bart_dropout.h"
#include "precis/model/bart/bart_stages.h"
#include "precis/model/common/teacher_forcing.h"

namespace precis {

namespace {

// What the backward of every layer of one stack works with: the stack's gradient buffers,
// cut to its (B, L, ...) shapes, and the step's config, dropout context and attention scratch.
struct BartStackBackward {
  const BartConfig& c;
  const DropoutContext& ctx;
  AttentionGradScratch& attention;
  Tensor dh;         // (B, L, d) gradient of the running hidden state (the stream's type)
  Tensor dbranch;    // (B, L, d) gradient of a sub-layer's sum, then of x through its branch
  Tensor dbranch16;  // (B, L, d) mixed precision only: the branch output's gradient, rounded
  Tensor dffn;       // (B, L, ffn) gradient of the feed-forward's hidden layer
};

BartStackBackward stack_backward(const BartConfig& c, const DropoutContext& ctx, BartGradScratch& s,
                                 int64_t B, int64_t L, int64_t ffn) {
  return {c,
          ctx,
          s.attention,
          s.d_hidden.prefix({B, L, c.d_model}),
          s.d_branch.prefix({B, L, c.d_model}),
          s.d_branch16.ptr ? s.d_branch16.prefix({B, L, c.d_model}) : Tensor{},
          s.d_ffn.prefix({B, L, ffn})};
}

// A post-LN residual sub-layer, out = LN(sum) with sum = x + branch(x), in reverse: dh holds
// out's gradient and leaves with x's. `branch_backward(d_out, dx, add)` turns the branch
// output's gradient d_out into x's share through the branch, written into dx or added to it.
template <class BranchBackward>
void residual_sublayer_backward(const BartStackBackward& sb, const LayerNormParams& norm,
                                const Tensor& sum, const LayerNormActivations& norm_acts,
                                LayerNormParams& g_norm, BranchBackward branch_backward) {
  if (sb.dbranch16.ptr) {
    // Mixed precision: dh (fp32) becomes the sum's gradient in place, x's along the residual
    // path; the branch takes it rounded to 16 bits (the backward of torch's promotion), and its
    // shares of x join dh in fp32 in their GEMMs.
    layer_norm_backward(norm, sum, norm_acts, sb.dh, g_norm, sb.dh, sb.dbranch16);
    return branch_backward(sb.dbranch16, sb.dh, true);
  }
  layer_norm_backward(norm, sum, norm_acts, sb.dh, g_norm, sb.dbranch);
  copy(sb.dbranch, sb.dh);  // dh: x's gradient along the residual path
  branch_backward(sb.dbranch, sb.dbranch, false);
  add_into(sb.dbranch, sb.dh);
}

// x -> LN(x + SelfAttn(x)), the sub-layer every layer of both stacks starts with: the
// self_attn, residual1 and self_attn_layer_norm of a BartEncoderLayer* or BartDecoderLayer*.
template <class LayerParams, class LayerActivations>
void self_attention_sublayer_backward(const BartStackBackward& sb, const LayerParams& lp,
                                      LayerActivations& la, LayerParams& lg,
                                      const LayerNormActivations& x, int64_t heads, uint32_t id) {
  residual_sublayer_backward(
      sb, lp.self_attn_layer_norm, la.residual1, la.self_attn_layer_norm, lg.self_attn_layer_norm,
      [&](const Tensor& d_out, const Tensor& dx, bool add) {
        attention_block_backward(lp.self_attn, x.linear_input(), x.linear_input(), heads,
                                 bart_dropout::attention(sb.c, sb.ctx, id), la.self_attn, d_out,
                                 sb.attention, lg.self_attn, dx, Tensor{}, true, {}, Tensor{}, add);
      });
}

// x -> LN(sum), sum = x + FFN(x): the sub-layer every layer of both stacks ends with.
template <class LayerParams, class LayerActivations>
void feed_forward_sublayer_backward(const BartStackBackward& sb, const LayerParams& lp,
                                    LayerActivations& la, LayerParams& lg,
                                    const LayerNormActivations& x, const Tensor& sum, uint32_t id) {
  residual_sublayer_backward(sb, lp.final_layer_norm, sum, la.final_layer_norm, lg.final_layer_norm,
                             [&](const Tensor& d_out, const Tensor& dx, bool add) {
                               feed_forward_backward(lp.ffn, sb.c.activation, x.linear_input(),
                                                     bart_dropout::feed_forward(sb.c, sb.ctx, id),
                                                     la.ffn, d_out, sb.dffn, lg.ffn, dx, add);
                             });
}

// An encoder layer in reverse: dh, the gradient of its output, becomes that of `input`.
void encoder_layer_backward(const BartStackBackward& sb, const BartEncoderLayerParams& lp,
                            BartEncoderLayerActivations& la, BartEncoderLayerParams& lg,
                            const LayerNormActivations& input, uint32_t id) {
  // out = LN2(r2), r2 = ln1 + ffn(ln1); ln1 = LN1(r1), r1 = input + self(input)
  feed_forward_sublayer_backward(sb, lp, la, lg, la.self_attn_layer_norm, la.residual2, id);
  self_attention_sublayer_backward(sb, lp, la, lg, input, sb.c.encoder_attention_heads, id);
}

// A decoder layer in reverse, as an encoder layer's with the cross-attention between its two
// sub-layers; the cross-attention's keys' and values' share goes to denc (+=).
void decoder_layer_backward(const BartStackBackward& sb, const BartDecoderLayerParams& lp,
                            BartDecoderLayerActivations& la, BartDecoderLayerParams& lg,
                            const LayerNormActivations& input,
                            const LayerNormActivations& encoder_out, const Tensor& denc,
                            uint32_t id) {
  // out = LN3(r3), r3 = ln2 + ffn(ln2)
  feed_forward_sublayer_backward(sb, lp, la, lg, la.encoder_attn_layer_norm, la.residual3, id);
  // ln2 = LN2(r2), r2 = ln1 + cross(ln1, enc)
  residual_sublayer_backward(
      sb, lp.encoder_attn_layer_norm, la.residual2, la.encoder_attn_layer_norm,
      lg.encoder_attn_layer_norm, [&](const Tensor& d_out, const Tensor& dx, bool add) {
        attention_block_backward(lp.encoder_attn, la.self_attn_layer_norm.linear_input(),
                                 encoder_out.linear_input(), sb.c.decoder_attention_heads,
                                 bart_dropout::attention(sb.c, sb.ctx, id, true), la.encoder_attn,
                                 d_out, sb.attention, lg.encoder_attn, dx, denc, false, {},
                                 Tensor{}, add);
      });
  // ln1 = LN1(r1), r1 = input + self(input)
  self_attention_sublayer_backward(sb, lp, la, lg, input, sb.c.decoder_attention_heads, id);
}

// The embeddings' backward: dh is the gradient of dropout(layernorm(tokens*scale + positions)).
void embedding_backward_all(const BartStackBackward& sb, const Tensor& ids, const Tensor& embedded,
                            const LayerNormParams& ln, const LayerNormActivations& ln_acts,
                            uint32_t stack, LayerNormParams& g_ln, const Tensor& g_positions,
                            const Tensor& g_shared, CheckedIds known) {
  const BartConfig& c = sb.c;
  dropout_backward(sb.dh, bart_dropout::embedding(c, sb.ctx, stack), sb.dh);
  layer_norm_backward(ln, embedded, ln_acts, sb.dh, g_ln, sb.dbranch);
  position_embeddings_backward(sb.dbranch, BartConfig::kPositionOffset, g_positions);
  embedding_backward(sb.dbranch, ids, c.embed_scale(), c.pad_token_id, g_shared, known);
}

}  // namespace

void bart_backward(const BartConfig& c, const BartParams& p, const Seq2SeqBatch& batch,
                   BartActivations& a, const DropoutContext& ctx, float label_smoothing,
                   float loss_scale, BartParams& g, BartGradScratch& s) {
  namespace drop = bart_dropout;
  const int64_t B = a.batch, S = a.source_len, T = a.target_len;
  const BartStackBackward dec = stack_backward(c, ctx, s, B, T, c.decoder_ffn_dim);
  const Tensor denc = s.zeroed_encoder_output_grad(B, S, c.d_model);

  // Loss and LM head: logits = h · lm_headᵀ + final_logits_bias (a buffer: no gradient).
  teacher_forced_loss_backward(batch, a.logits, a.decoder_output().linear_input(), p.lm_head,
                               label_smoothing, loss_scale, dec.dh, g.lm_head, a.rounded_logits);

  // Decoder layers, last to first. dh: gradient of the layer's output.
  for (size_t i = a.decoder_layers.size(); i-- > 0;) {
    const LayerNormActivations& input =
        i == 0 ? a.decoder_layernorm_embedding : a.decoder_layers[i - 1].final_layer_norm;
    decoder_layer_backward(dec, p.decoder_layers[i], a.decoder_layers[i], g.decoder_layers[i],
                           input, a.encoder_output(), denc, drop::kDecoder + uint32_t(i));
    s.end_stage(bart_stages::decoder_layer(c, int64_t(i)));
  }
  embedding_backward_all(dec, batch.decoder_input_ids, a.decoder_embedded,
                         p.decoder_layernorm_embedding, a.decoder_layernorm_embedding,
                         drop::kDecoderEmbedding, g.decoder_layernorm_embedding,
                         g.decoder_positions, g.shared, batch.ids_checked);
  s.end_stage(bart_stages::decoder_embeddings(c));

  // Encoder layers, last to first, starting from the cross-attentions' gradient.
  const BartStackBackward enc = stack_backward(c, ctx, s, B, S, c.encoder_ffn_dim);
  copy(denc, enc.dh);
  for (size_t i = a.encoder_layers.size(); i-- > 0;) {
    const LayerNormActivations& input =
        i == 0 ? a.encoder_layernorm_embedding : a.encoder_layers[i - 1].final_layer_norm;
    encoder_layer_backward(enc, p.encoder_layers[i], a.encoder_layers[i], g.encoder_layers[i],
                           input, uint32_t(i));
    s.end_stage(bart_stages::encoder_layer(c, int64_t(i)));
  }
  embedding_backward_all(enc, batch.input_ids, a.encoder_embedded, p.encoder_layernorm_embedding,
                         a.encoder_layernorm_embedding, drop::kEncoderEmbedding,
                         g.encoder_layernorm_embedding, g.encoder_positions, g.shared,
                         batch.ids_checked);
}

}  // namespace precis
