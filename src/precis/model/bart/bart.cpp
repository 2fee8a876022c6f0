// BART's forward (bart.h): embeddings, post-LN encoder and decoder layers, the LM head. The
// activations it fills are laid out by bart_activations.cpp; bart_backward.cpp runs it in reverse.
#include "precis/model/bart/bart.h"

#include "precis/kernels/convert.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/layernorm.h"
#include "precis/kernels/linear.h"
#include "precis/model/bart/bart_dropout.h"
#include "precis/model/common/teacher_forcing.h"

namespace precis {

namespace {

// The end of a post-LN sub-layer: norm = LN(sum), sum = x + branch, in x's type (fp32 under
// mixed precision, where the branch is 16-bit and joins it widened, as torch promotes it).
void add_and_layer_norm(const Tensor& x, const Tensor& branch, const Tensor& sum,
                        const LayerNormParams& p, LayerNormActivations& norm) {
  if (branch.dtype == sum.dtype)
    add(x, branch, sum);
  else
    add_to_fp32(x, branch, sum);
  layer_norm_forward(p, sum, BartConfig::kLayerNormEps, norm);
}

// x -> LN(x + SelfAttn(x)), the sub-layer every layer of both stacks starts with: the
// self_attn, residual1 and self_attn_layer_norm of a BartEncoderLayer* or BartDecoderLayer*.
template <class LayerParams, class LayerActivations>
void self_attention_sublayer_forward(const BartConfig& c, const LayerParams& lp,
                                     LayerActivations& la, const LayerNormActivations& x,
                                     int64_t heads, const AttentionMask& mask,
                                     const DropoutContext& ctx, uint32_t id) {
  attention_block_forward(lp.self_attn, x.linear_input(), x.linear_input(), heads, mask,
                          bart_dropout::attention(c, ctx, id), la.self_attn);
  add_and_layer_norm(x.out, la.self_attn.out, la.residual1, lp.self_attn_layer_norm,
                     la.self_attn_layer_norm);
}

// x -> LN(sum), sum = x + FFN(x): the sub-layer every layer of both stacks ends with.
template <class LayerParams, class LayerActivations>
void feed_forward_sublayer_forward(const BartConfig& c, const LayerParams& lp, LayerActivations& la,
                                   const LayerNormActivations& x, const Tensor& sum,
                                   const DropoutContext& ctx, uint32_t id) {
  feed_forward_forward(lp.ffn, c.activation, x.linear_input(),
                       bart_dropout::feed_forward(c, ctx, id), la.ffn);
  add_and_layer_norm(x.out, la.ffn.fc2, sum, lp.final_layer_norm, la.final_layer_norm);
}

// A decoder layer: causal self-attention, cross-attention over the encoder output, FFN.
void decoder_layer_forward(const BartConfig& c, const BartDecoderLayerParams& lp,
                           const LayerNormActivations& x, const LayerNormActivations& encoder_out,
                           const AttentionMask& source_mask, const DropoutContext& ctx, uint32_t id,
                           BartDecoderLayerActivations& la) {
  const int64_t heads = c.decoder_attention_heads;
  self_attention_sublayer_forward(c, lp, la, x, heads, AttentionMask{.causal = true}, ctx, id);
  const LayerNormActivations& ln1 = la.self_attn_layer_norm;
  attention_block_forward(lp.encoder_attn, ln1.linear_input(), encoder_out.linear_input(), heads,
                          source_mask, bart_dropout::attention(c, ctx, id, true), la.encoder_attn);
  add_and_layer_norm(ln1.out, la.encoder_attn.out, la.residual2, lp.encoder_attn_layer_norm,
                     la.encoder_attn_layer_norm);
  feed_forward_sublayer_forward(c, lp, la, la.encoder_attn_layer_norm, la.residual3, ctx, id);
}

// A stack's embeddings: dropout(layernorm(tokens * embed_scale + positions)) into out.out.
void embeddings_forward(const BartConfig& c, const Tensor& ids, const Tensor& shared,
                        const Tensor& positions, const LayerNormParams& layernorm,
                        const DropoutSpec& dropout, const Tensor& embedded,
                        LayerNormActivations& out, CheckedIds known) {
  embedding_forward(ids, shared, c.embed_scale(), embedded, known);
  add_position_embeddings(embedded, positions, BartConfig::kPositionOffset);
  layernorm_forward(embedded, layernorm.weight, layernorm.bias, BartConfig::kLayerNormEps, out.out,
                    out.mean, out.rstd);
  dropout_forward(out.out, dropout, out.out);
  if (out.rounded.ptr) convert(out.out, out.rounded);
}

// The LM head: logits = h · lm_headᵀ + final_logits_bias. Under mixed precision autocast rounds
// the product to 16 bits and the fp32 bias then promotes the sum: the product rounded, widened,
// and the bias added in fp32 (one row of "position embeddings" added to every row).
void lm_head_forward(const BartConfig& c, const BartParams& p, const LayerNormActivations& h,
                     BartActivations& a) {
  const Tensor bias = p.final_logits_bias.view({c.vocab_size});
  if (!a.rounded_logits.ptr) return linear_forward(h.out, p.lm_head, bias, a.logits);
  linear_forward(h.linear_input(), p.lm_head, Tensor{}, a.rounded_logits);
  convert(a.rounded_logits, a.logits);
  const int64_t rows = a.logits.size(0) * a.logits.size(1);
  add_position_embeddings(a.logits.view({rows, 1, c.vocab_size}), bias.view({1, c.vocab_size}), 0);
}

}  // namespace

void bart_encoder_layer_forward(const BartConfig& c, const BartEncoderLayerParams& lp,
                                const LayerNormActivations& x, const AttentionMask& source_mask,
                                const DropoutContext& ctx, uint32_t id,
                                BartEncoderLayerActivations& la) {
  self_attention_sublayer_forward(c, lp, la, x, c.encoder_attention_heads, source_mask, ctx, id);
  feed_forward_sublayer_forward(c, lp, la, la.self_attn_layer_norm, la.residual2, ctx, id);
}

void bart_forward(const BartConfig& c, const BartParams& p, const Seq2SeqBatch& batch,
                  BartActivations& a, const DropoutContext& ctx) {
  namespace drop = bart_dropout;
  check_batch_fits(batch, a.batch, a.source_len, a.target_len);

  // Encoder: embeddings, then post-LN layers.
  embeddings_forward(c, batch.input_ids, p.shared, p.encoder_positions,
                     p.encoder_layernorm_embedding,
                     drop::embedding(c, ctx, drop::kEncoderEmbedding), a.encoder_embedded,
                     a.encoder_layernorm_embedding, batch.ids_checked);
  AttentionMask source_mask{.key_padding = batch.attention_mask};
  const LayerNormActivations* h = &a.encoder_layernorm_embedding;
  for (size_t i = 0; i < a.encoder_layers.size(); ++i) {
    bart_encoder_layer_forward(c, p.encoder_layers[i], *h, source_mask, ctx, uint32_t(i),
                               a.encoder_layers[i]);
    h = &a.encoder_layers[i].final_layer_norm;
  }
  const LayerNormActivations& encoder_out = *h;

  // Decoder: embeddings, then layers that attend to the encoder output.
  embeddings_forward(c, batch.decoder_input_ids, p.shared, p.decoder_positions,
                     p.decoder_layernorm_embedding,
                     drop::embedding(c, ctx, drop::kDecoderEmbedding), a.decoder_embedded,
                     a.decoder_layernorm_embedding, batch.ids_checked);
  h = &a.decoder_layernorm_embedding;
  for (size_t i = 0; i < a.decoder_layers.size(); ++i) {
    decoder_layer_forward(c, p.decoder_layers[i], *h, encoder_out, source_mask, ctx,
                          drop::kDecoder + uint32_t(i), a.decoder_layers[i]);
    h = &a.decoder_layers[i].final_layer_norm;
  }
  lm_head_forward(c, p, *h, a);
}

}  // namespace precis
