#include "precis/model/t5/t5_params.h"

#include "precis/model/common/parameter_layout.h"

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

}  // namespace

void visit_parameters(const T5Config& c, T5Params& p, const ParamVisitor& visit) {
  const int64_t d = c.d_model;
  p.encoder_blocks.resize(size_t(c.num_layers));
  p.decoder_blocks.resize(size_t(c.num_decoder_layers));
  visit("shared.weight", p.shared, Shape{c.vocab_size, d}, ParamRole::Trainable);
  for (size_t i = 0; i < p.encoder_blocks.size(); ++i) {
    auto& b = p.encoder_blocks[i];
    const std::string n = "encoder.block." + std::to_string(i) + ".layer.";
    visit_attention(n + "0.SelfAttention", b.self_attn, c, visit);
    if (i == 0) visit_relative_bias(n + "0.SelfAttention", p.encoder_relative_bias, c, visit);
    visit_norm(n + "0.layer_norm", b.self_attn_norm, d, visit);
    visit_ffn(n + "1.DenseReluDense", b.ffn, c, visit);
    visit_norm(n + "1.layer_norm", b.ffn_norm, d, visit);
  }
  visit_norm("encoder.final_layer_norm", p.encoder_final_norm, d, visit);
  for (size_t i = 0; i < p.decoder_blocks.size(); ++i) {
    auto& b = p.decoder_blocks[i];
    const std::string n = "decoder.block." + std::to_string(i) + ".layer.";
    visit_attention(n + "0.SelfAttention", b.self_attn, c, visit);
    if (i == 0) visit_relative_bias(n + "0.SelfAttention", p.decoder_relative_bias, c, visit);
    visit_norm(n + "0.layer_norm", b.self_attn_norm, d, visit);
    visit_attention(n + "1.EncDecAttention", b.cross_attn, c, visit);
    visit_norm(n + "1.layer_norm", b.cross_attn_norm, d, visit);
    visit_ffn(n + "2.DenseReluDense", b.ffn, c, visit);
    visit_norm(n + "2.layer_norm", b.ffn_norm, d, visit);
  }
  visit_norm("decoder.final_layer_norm", p.decoder_final_norm, d, visit);
  visit_lm_head(c.tie_word_embeddings, p.lm_head, p.shared, c.vocab_size, d, visit);
}

void allocate_parameters(const T5Config& c, T5Params& p, Arena& arena) {
  lay_out_parameters(c, p, arena);
}

size_t parameter_bytes(const T5Config& c) { return measure_parameter_bytes<T5Params>(c); }

int64_t parameter_count(const T5Config& c) { return count_trainable_parameters<T5Params>(c); }

}  // namespace precis
