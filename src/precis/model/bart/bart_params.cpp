#include "precis/model/bart/bart_params.h"

#include "precis/model/common/parameter_layout.h"

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

void visit_ffn(const std::string& prefix, FeedForwardParams& p, int64_t d, int64_t ffn,
               const ParamVisitor& visit) {
  visit_linear(prefix + "fc1", p.fc1, ffn, d, visit);
  visit_linear(prefix + "fc2", p.fc2, d, ffn, visit);
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
  for (size_t i = 0; i < p.encoder_layers.size(); ++i) {
    auto& l = p.encoder_layers[i];
    std::string n = layer_name("encoder", i);
    visit_attention(n + "self_attn", l.self_attn, d, visit);
    visit_layer_norm(n + "self_attn_layer_norm", l.self_attn_layer_norm, d, visit);
    visit_ffn(n, l.ffn, d, c.encoder_ffn_dim, visit);
    visit_layer_norm(n + "final_layer_norm", l.final_layer_norm, d, visit);
  }
  visit_layer_norm("model.encoder.layernorm_embedding", p.encoder_layernorm_embedding, d, visit);
  visit("model.decoder.embed_positions.weight", p.decoder_positions, Shape{positions, d},
        ParamRole::Trainable);
  for (size_t i = 0; i < p.decoder_layers.size(); ++i) {
    auto& l = p.decoder_layers[i];
    std::string n = layer_name("decoder", i);
    visit_attention(n + "self_attn", l.self_attn, d, visit);
    visit_layer_norm(n + "self_attn_layer_norm", l.self_attn_layer_norm, d, visit);
    visit_attention(n + "encoder_attn", l.encoder_attn, d, visit);
    visit_layer_norm(n + "encoder_attn_layer_norm", l.encoder_attn_layer_norm, d, visit);
    visit_ffn(n, l.ffn, d, c.decoder_ffn_dim, visit);
    visit_layer_norm(n + "final_layer_norm", l.final_layer_norm, d, visit);
  }
  visit_layer_norm("model.decoder.layernorm_embedding", p.decoder_layernorm_embedding, d, visit);
  visit_lm_head(c.tie_word_embeddings, p.lm_head, p.shared, c.vocab_size, d, visit);
}

void allocate_parameters(const BartConfig& c, BartParams& p, Arena& arena) {
  lay_out_parameters(c, p, arena);
}

size_t parameter_bytes(const BartConfig& c) { return measure_parameter_bytes<BartParams>(c); }

int64_t parameter_count(const BartConfig& c) { return count_trainable_parameters<BartParams>(c); }

}  // namespace precis
