#include "precis/model/bart/bart_params.h"

namespace precis {

namespace {

std::string layer_name(const char* stack, size_t i) {
  return std::string("model.") + stack + ".layers." + std::to_string(i) + ".";
}

void visit_linear(const std::string& name, LinearParams& p, int64_t out, int64_t in,
                  const ParamVisitor& visit) {
  visit(name + ".weight", p.weight, Shape{out, in}, ParamRole::Trainable);
  visit(name + ".bias", p.bias, Shape{out}, ParamRole::TrainableNoDecay);
}

void visit_layer_norm(const std::string& name, LayerNormParams& p, int64_t d,
                      const ParamVisitor& visit) {
  visit(name + ".weight", p.weight, Shape{d}, ParamRole::TrainableNoDecay);
  visit(name + ".bias", p.bias, Shape{d}, ParamRole::TrainableNoDecay);
}

// HF registers k_proj, v_proj, q_proj, out_proj in that order.
void visit_attention(const std::string& name, AttentionParams& p, int64_t d,
                     const ParamVisitor& visit) {
  visit_linear(name + ".k_proj", p.k_proj, d, d, visit);
  visit_linear(name + ".v_proj", p.v_proj, d, d, visit);
  visit_linear(name + ".q_proj", p.q_proj, d, d, visit);
  visit_linear(name + ".out_proj", p.out_proj, d, d, visit);
}

// An attention sub-layer of layer `n`: `name` (self_attn or encoder_attn) and the layer norm
// after it, name_layer_norm.
void visit_attention_sublayer(const std::string& n, const char* name, AttentionParams& attention,
                              LayerNormParams& norm, int64_t d, const ParamVisitor& visit) {
  visit_attention(n + name, attention, d, visit);
  visit_layer_norm(n + name + "_layer_norm", norm, d, visit);
}

// The feed-forward sub-layer of layer `n`: fc1, fc2 and final_layer_norm.
void visit_feed_forward_sublayer(const std::string& n, FeedForwardParams& p, LayerNormParams& norm,
                                 int64_t d, int64_t ffn, const ParamVisitor& visit) {
  visit_linear(n + "fc1", p.fc1, ffn, d, visit);
  visit_linear(n + "fc2", p.fc2, d, ffn, visit);
  visit_layer_norm(n + "final_layer_norm", norm, d, visit);
}

void visit_encoder_layer(const std::string& n, BartEncoderLayerParams& l, const BartConfig& c,
                         const ParamVisitor& visit) {
  visit_attention_sublayer(n, "self_attn", l.self_attn, l.self_attn_layer_norm, c.d_model, visit);
  visit_feed_forward_sublayer(n, l.ffn, l.final_layer_norm, c.d_model, c.encoder_ffn_dim, visit);
}

void visit_decoder_layer(const std::string& n, BartDecoderLayerParams& l, const BartConfig& c,
                         const ParamVisitor& visit) {
  visit_attention_sublayer(n, "self_attn", l.self_attn, l.self_attn_layer_norm, c.d_model, visit);
  visit_attention_sublayer(n, "encoder_attn", l.encoder_attn, l.encoder_attn_layer_norm, c.d_model,
                           visit);
  visit_feed_forward_sublayer(n, l.ffn, l.final_layer_norm, c.d_model, c.decoder_ffn_dim, visit);
}

}  // namespace

void visit_parameters(const BartConfig& c, BartParams& p, const ParamVisitor& visit) {
  const int64_t d = c.d_model, positions = c.max_position_embeddings + BartConfig::kPositionOffset;
  p.encoder_layers.resize(size_t(c.encoder_layers));
  p.decoder_layers.resize(size_t(c.decoder_layers));
  visit("final_logits_bias", p.final_logits_bias, Shape{1, c.vocab_size}, ParamRole::Buffer);
  visit("model.shared.weight", p.shared, Shape{c.vocab_size, d}, ParamRole::Trainable);
  visit("model.encoder.embed_positions.weight", p.encoder_positions, Shape{positions, d},
        ParamRole::Trainable);
  for (size_t i = 0; i < p.encoder_layers.size(); ++i)
    visit_encoder_layer(layer_name("encoder", i), p.encoder_layers[i], c, visit);
  visit_layer_norm("model.encoder.layernorm_embedding", p.encoder_layernorm_embedding, d, visit);
  visit("model.decoder.embed_positions.weight", p.decoder_positions, Shape{positions, d},
        ParamRole::Trainable);
  for (size_t i = 0; i < p.decoder_layers.size(); ++i)
    visit_decoder_layer(layer_name("decoder", i), p.decoder_layers[i], c, visit);
  visit_layer_norm("model.decoder.layernorm_embedding", p.decoder_layernorm_embedding, d, visit);
  visit_lm_head(c.tie_word_embeddings, p.lm_head, p.shared, c.vocab_size, d, visit);
}

}  // namespace precis
