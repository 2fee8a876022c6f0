// BART's backward: the forward of bart.cpp in reverse, layer by layer. Parameter gradients
// accumulate (+=) into `g`; activation gradients are written into the scratch buffers.
// The tied embedding collects three contributions: the LM head and both token lookups.
#include "precis/kernels/copy.h"
#include "precis/kernels/fill.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/linear.h"
#include "precis/model/bart/bart.h"
#include "precis/model/bart/bart_dropout.h"
#include "precis/model/bart/bart_stages.h"

namespace precis {

namespace {

// The embeddings' backward: d_out is the gradient of dropout(layernorm(tokens*scale + positions)).
void embedding_backward_all(const BartConfig& c, const Tensor& ids, const Tensor& embedded,
                            const LayerNormParams& ln, const LayerNormActivations& ln_acts,
                            const DropoutSpec& dropout, const Tensor& d_out, const Tensor& d_embedded,
                            LayerNormParams& g_ln, const Tensor& g_positions, const Tensor& g_shared) {
  dropout_backward(d_out, dropout, d_out);
  layer_norm_backward(ln, embedded, ln_acts, d_out, g_ln, d_embedded);
  position_embeddings_backward(d_embedded, BartConfig::kPositionOffset, g_positions);
  embedding_backward(d_embedded, ids, c.embed_scale(), c.pad_token_id, g_shared);
}

}  // namespace

void bart_backward(const BartConfig& c, const BartParams& p, const Seq2SeqBatch& batch,
                   BartActivations& a, const DropoutContext& ctx, float label_smoothing,
                   float loss_scale, BartParams& g, BartGradScratch& s) {
  namespace drop = bart_dropout;
  check(batch.labels.ptr != nullptr, "the backward needs labels");
  const int64_t B = a.batch, S = a.source_len, T = a.target_len, d = c.d_model;
  Tensor dh = s.d_hidden.prefix({B, T, d}), dbranch = s.d_branch.prefix({B, T, d});
  Tensor dffn = s.d_ffn.prefix({B, T, c.decoder_ffn_dim});
  Tensor denc = s.d_encoder_output.prefix({B, S, d});
  zero(denc);

  // Loss and LM head: logits = h · lm_headᵀ + final_logits_bias (a buffer: no gradient).
  Tensor logits = a.logits.view({B * T, c.vocab_size});
  cross_entropy_backward(logits, batch.labels.view({B * T}), label_smoothing, loss_scale, logits);
  linear_backward(a.logits, a.decoder_output(), p.lm_head, dh, g.lm_head, Tensor{});

  // Decoder layers, last to first. dh: gradient of the layer's output.
  for (size_t i = a.decoder_layers.size(); i-- > 0;) {
    const auto& lp = p.decoder_layers[i];
    auto& la = a.decoder_layers[i];
    auto& lg = g.decoder_layers[i];
    const uint32_t id = drop::kDecoder + uint32_t(i);
    const Tensor& input = i == 0 ? a.decoder_layernorm_embedding.out
                                 : a.decoder_layers[i - 1].final_layer_norm.out;
    // h = LN3(r3), r3 = ln2 + ffn(ln2)
    layer_norm_backward(lp.final_layer_norm, la.residual3, la.final_layer_norm, dh,
                        lg.final_layer_norm, dbranch);
    copy(dbranch, dh);  // dh: gradient of ln2's output, residual path
    feed_forward_backward(lp.ffn, c.activation, la.encoder_attn_layer_norm.out,
                          drop::feed_forward(c, ctx, id), la.ffn, dbranch, dffn, lg.ffn, dbranch);
    add_into(dbranch, dh);
    // ln2 = LN2(r2), r2 = ln1 + cross(ln1, enc)
    layer_norm_backward(lp.encoder_attn_layer_norm, la.residual2, la.encoder_attn_layer_norm, dh,
                        lg.encoder_attn_layer_norm, dbranch);
    copy(dbranch, dh);
    attention_block_backward(lp.encoder_attn, la.self_attn_layer_norm.out, a.encoder_output(),
                             c.decoder_attention_heads, drop::attention(c, ctx, id, true),
                             la.encoder_attn, dbranch, s.attention, lg.encoder_attn, dbranch, denc,
                             false);
    add_into(dbranch, dh);
    // ln1 = LN1(r1), r1 = input + self(input)
    layer_norm_backward(lp.self_attn_layer_norm, la.residual1, la.self_attn_layer_norm, dh,
                        lg.self_attn_layer_norm, dbranch);
    copy(dbranch, dh);
    attention_block_backward(lp.self_attn, input, input, c.decoder_attention_heads,
                             drop::attention(c, ctx, id), la.self_attn, dbranch, s.attention,
                             lg.self_attn, dbranch, Tensor{}, true);
    add_into(dbranch, dh);
    if (s.stage_done) s.stage_done(bart_stages::decoder_layer(c, int64_t(i)));
  }
  embedding_backward_all(c, batch.decoder_input_ids, a.decoder_embedded, p.decoder_layernorm_embedding,
                         a.decoder_layernorm_embedding, drop::embedding(c, ctx, drop::kDecoderEmbedding),
                         dh, dbranch, g.decoder_layernorm_embedding, g.decoder_positions, g.shared);
  if (s.stage_done) s.stage_done(bart_stages::decoder_embeddings(c));

  // Encoder layers, last to first, starting from the cross-attentions' gradient.
  dh = s.d_hidden.prefix({B, S, d});
  dbranch = s.d_branch.prefix({B, S, d});
  dffn = s.d_ffn.prefix({B, S, c.encoder_ffn_dim});
  copy(denc, dh);
  for (size_t i = a.encoder_layers.size(); i-- > 0;) {
    const auto& lp = p.encoder_layers[i];
    auto& la = a.encoder_layers[i];
    auto& lg = g.encoder_layers[i];
    const uint32_t id = uint32_t(i);
    const Tensor& input = i == 0 ? a.encoder_layernorm_embedding.out
                                 : a.encoder_layers[i - 1].final_layer_norm.out;
    layer_norm_backward(lp.final_layer_norm, la.residual2, la.final_layer_norm, dh,
                        lg.final_layer_norm, dbranch);
    copy(dbranch, dh);
    feed_forward_backward(lp.ffn, c.activation, la.self_attn_layer_norm.out,
                          drop::feed_forward(c, ctx, id), la.ffn, dbranch, dffn, lg.ffn, dbranch);
    add_into(dbranch, dh);
    layer_norm_backward(lp.self_attn_layer_norm, la.residual1, la.self_attn_layer_norm, dh,
                        lg.self_attn_layer_norm, dbranch);
    copy(dbranch, dh);
    attention_block_backward(lp.self_attn, input, input, c.encoder_attention_heads,
                             drop::attention(c, ctx, id), la.self_attn, dbranch, s.attention,
                             lg.self_attn, dbranch, Tensor{}, true);
    add_into(dbranch, dh);
    if (s.stage_done) s.stage_done(bart_stages::encoder_layer(c, int64_t(i)));
  }
  embedding_backward_all(c, batch.input_ids, a.encoder_embedded, p.encoder_layernorm_embedding,
                         a.encoder_layernorm_embedding, drop::embedding(c, ctx, drop::kEncoderEmbedding),
                         dh, dbranch, g.encoder_layernorm_embedding, g.encoder_positions, g.shared);
}

}  // namespace precis
