#include "precis/model/t5/t5_params.h"

namespace precis {

namespace {

void visit_weight(const std::string& name, LinearParams& p, int64_t out, int64_t in,
                  const ParamVisitor& visit) {
  visit(name + ".weight", p.weight, Shape{out, in}, ParamRole::Trainable);
}

// HF registers q, k, v, o (and block 0's relative_attention_bias after them).
void visit_attention(const std::string& name, AttentionParams& p, const T5Config& c,
                     const ParamVisitor& visit) {
  const int64_t d = c.d_model, inner = c.inner_dim();
  visit_weight(name + ".q", p.q_proj, inner, d, visit);
  visit_weight(name + ".k", p.k_proj, inner, d, visit);
  visit_weight(name + ".v", p.v_proj, inner, d, visit);
  visit_weight(name + ".o", p.out_proj, d, inner, visit);
}

void visit_ffn(const std::string& name, T5FeedForwardParams& p, const T5Config& c,
               const ParamVisitor& visit) {
  if (c.gated) {
    visit_weight(name + ".wi_0", p.wi_0, c.d_ff, c.d_model, visit);
    visit_weight(name + ".wi_1", p.wi_1, c.d_ff, c.d_model, visit);
  } else {
    visit_weight(name + ".wi", p.wi, c.d_ff, c.d_model, visit);
  }
  visit_weight(name + ".wo", p.wo, c.d_model, c.d_ff, visit);
}

void visit_norm(const std::string& name, Tensor& weight, int64_t d, const ParamVisitor& visit) {
  visit(name + ".weight", weight, Shape{d}, ParamRole::TrainableNoDecay);
}

void visit_relative_bias(const std::string& name, Tensor& table, const T5Config& c,
                         const ParamVisitor& visit) {
  visit(name + ".relative_attention_bias.weight", table,
        Shape{c.relative_attention_num_buckets, c.num_heads}, ParamRole::TrainableNoDecay);
}

// T5LayerSelfAttention or T5LayerCrossAttention at `layer` ("encoder.block.i.layer.0"):
// `kind` (SelfAttention or EncDecAttention), block 0's relative bias table after its
// projections when `bias_table` is given, then the layer's norm.
void visit_layer_attention(const std::string& layer, const char* kind, AttentionParams& attention,
                           Tensor* bias_table, Tensor& norm, const T5Config& c,
                           const ParamVisitor& visit) {
  visit_attention(layer + "." + kind, attention, c, visit);
  if (bias_table) visit_relative_bias(layer + "." + kind, *bias_table, c, visit);
  visit_norm(layer + ".layer_norm", norm, c.d_model, visit);
}

// T5LayerFF at `layer`: DenseReluDense, then the layer's norm.
void visit_layer_ff(const std::string& layer, T5FeedForwardParams& ffn, Tensor& norm,
                    const T5Config& c, const ParamVisitor& visit) {
  visit_ffn(layer + ".DenseReluDense", ffn, c, visit);
  visit_norm(layer + ".layer_norm", norm, c.d_model, visit);
}

std::string block_name(const char* stack, size_t i) {
  return std::string(stack) + ".block." + std::to_string(i) + ".layer.";
}

// bias_table: the stack's relative bias, which block 0 holds (null for the other blocks).
void visit_encoder_block(const std::string& n, T5EncoderBlockParams& b, Tensor* bias_table,
                         const T5Config& c, const ParamVisitor& visit) {
  visit_layer_attention(n + "0", "SelfAttention", b.self_attn, bias_table, b.self_attn_norm, c,
                        visit);
  visit_layer_ff(n + "1", b.ffn, b.ffn_norm, c, visit);
}

void visit_decoder_block(const std::string& n, T5DecoderBlockParams& b, Tensor* bias_table,
                         const T5Config& c, const ParamVisitor& visit) {
  visit_layer_attention(n + "0", "SelfAttention", b.self_attn, bias_table, b.self_attn_norm, c,
                        visit);
  visit_layer_attention(n + "1", "EncDecAttention", b.cross_attn, nullptr, b.cross_attn_norm, c,
                        visit);
  visit_layer_ff(n + "2", b.ffn, b.ffn_norm, c, visit);
}

}  // namespace

void visit_parameters(const T5Config& c, T5Params& p, const ParamVisitor& visit) {
  const int64_t d = c.d_model;
  p.encoder_blocks.resize(size_t(c.num_layers));
  p.decoder_blocks.resize(size_t(c.num_decoder_layers));
  visit("shared.weight", p.shared, Shape{c.vocab_size, d}, ParamRole::Trainable);
  for (size_t i = 0; i < p.encoder_blocks.size(); ++i)
    visit_encoder_block(block_name("encoder", i), p.encoder_blocks[i],
                        i == 0 ? &p.encoder_relative_bias : nullptr, c, visit);
  visit_norm("encoder.final_layer_norm", p.encoder_final_norm, d, visit);
  for (size_t i = 0; i < p.decoder_blocks.size(); ++i)
    visit_decoder_block(block_name("decoder", i), p.decoder_blocks[i],
                        i == 0 ? &p.decoder_relative_bias : nullptr, c, visit);
  visit_norm("decoder.final_layer_norm", p.decoder_final_norm, d, visit);
  visit_lm_head(c.tie_word_embeddings, p.lm_head, p.shared, c.vocab_size, d, visit);
}

}  // namespace precis
