#include "precis/model/bart_incremental.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "precis/kernels/attention.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/layernorm.h"
#include "precis/kernels/linear.h"
#include "precis/model/layers.h"

namespace precis {

namespace {

// One encoder layer's activations; the encoder alternates two of them (inference keeps no
// per-layer state), so its memory does not grow with depth.
struct EncoderLayerScratch {
  AttentionActivations self_attn;
  Tensor residual1;
  LayerNormActivations self_attn_layer_norm;
  FeedForwardActivations ffn;
  Tensor residual2;
  LayerNormActivations final_layer_norm;
};

EncoderLayerScratch allocate_encoder_layer(const BartConfig& c, Arena& arena, int64_t B,
                                           int64_t S) {
  const int64_t d = c.d_model;
  EncoderLayerScratch l;
  l.self_attn = allocate_attention(arena, B, S, S, d, c.encoder_attention_heads, false);
  l.residual1 = arena.alloc({B, S, d});
  l.self_attn_layer_norm = allocate_layer_norm(arena, B, S, d);
  l.ffn = allocate_feed_forward(arena, B, S, d, c.encoder_ffn_dim);
  l.residual2 = arena.alloc({B, S, d});
  l.final_layer_norm = allocate_layer_norm(arena, B, S, d);
  return l;
}

struct EncoderScratch {
  Tensor embedded;  // (B, S, d)
  LayerNormActivations layernorm_embedding;
  EncoderLayerScratch layers[2];
};

EncoderScratch allocate_encoder(const BartConfig& c, Arena& arena, int64_t B, int64_t S) {
  EncoderScratch e;
  e.embedded = arena.alloc({B, S, c.d_model});
  e.layernorm_embedding = allocate_layer_norm(arena, B, S, c.d_model);
  e.layers[0] = allocate_encoder_layer(c, arena, B, S);
  e.layers[1] = allocate_encoder_layer(c, arena, B, S);
  return e;
}

// The encoder of bart_forward, step for step; the output is copied to `out` (B, S, d).
void encoder_forward(const BartConfig& c, const BartParams& p, const Tensor& input_ids,
                     const Tensor& attention_mask, EncoderScratch& e, const Tensor& out) {
  const float eps = BartConfig::kLayerNormEps;
  embedding_forward(input_ids, p.shared, c.embed_scale(), e.embedded);
  add_position_embeddings(e.embedded, p.encoder_positions, BartConfig::kPositionOffset);
  layer_norm_forward(p.encoder_layernorm_embedding, e.embedded, eps, e.layernorm_embedding);
  AttentionMask source_mask{attention_mask, false, 0, {}};
  const Tensor* h = &e.layernorm_embedding.out;
  for (size_t i = 0; i < p.encoder_layers.size(); ++i) {
    const auto& lp = p.encoder_layers[i];
    auto& la = e.layers[i % 2];
    attention_block_forward(lp.self_attn, *h, *h, c.encoder_attention_heads, source_mask,
                            la.self_attn);
    add(*h, la.self_attn.out, la.residual1);
    layer_norm_forward(lp.self_attn_layer_norm, la.residual1, eps, la.self_attn_layer_norm);
    feed_forward_forward(lp.ffn, c.activation, la.self_attn_layer_norm.out, la.ffn);
    add(la.self_attn_layer_norm.out, la.ffn.fc2, la.residual2);
    layer_norm_forward(lp.final_layer_norm, la.residual2, eps, la.final_layer_norm);
    h = &la.final_layer_norm.out;
  }
  std::memcpy(out.ptr, h->ptr, out.nbytes());
}

}  // namespace

BartIncrementalDecoder::BartIncrementalDecoder(const BartConfig& config, const BartParams& params,
                                               int64_t batch, int64_t source_len,
                                               int64_t rows_per_input, int64_t max_target_len)
    : config_(config),
      params_(params),
      batch_(batch),
      source_len_(source_len),
      group_(rows_per_input),
      rows_(batch * rows_per_input),
      max_target_len_(max_target_len) {
  check(batch > 0 && source_len > 0 && rows_per_input > 0 && max_target_len > 0,
        "incremental decoder: batch, source length, rows per input and target length must be "
        "positive");
  check(max_target_len <= config.max_position_embeddings,
        "generation length " + std::to_string(max_target_len) +
            " exceeds the model's max_position_embeddings (" +
            std::to_string(config.max_position_embeddings) + ")");
  const int64_t d = config.d_model, R = rows_, L = config.decoder_layers;
  auto lay_out = [&](Arena& a) {
    source_mask_ = a.alloc({batch_, source_len_}, DType::I32);
    encoder_out_ = a.alloc({batch_, source_len_, d});
    cross_.assign(size_t(L), {});
    for (auto& l : cross_) {
      l.k = a.alloc({batch_, source_len_, d});
      l.v = a.alloc({batch_, source_len_, d});
    }
    self_cache_.lay_out(a, L, R, max_target_len_, d);
    tokens_ = a.alloc({R, 1}, DType::I32);
    hidden_ = a.alloc({R, 1, d});
    q_ = a.alloc({R, 1, d});
    k_new_ = a.alloc({R, 1, d});
    v_new_ = a.alloc({R, 1, d});
    context_ = a.alloc({R, 1, d});
    attn_out_ = a.alloc({R, 1, d});
    residual_ = a.alloc({R, 1, d});
    mean_ = a.alloc({R});
    rstd_ = a.alloc({R});
    fc1_ = a.alloc({R, 1, config.decoder_ffn_dim});
    act_ = a.alloc({R, 1, config.decoder_ffn_dim});
    logits_ = a.alloc({R, config.vocab_size});
  };
  Arena measure = Arena::measuring();
  lay_out(measure);
  arena_ = Arena(measure.used());
  lay_out(arena_);
}

void BartIncrementalDecoder::encode(const Tensor& input_ids, const Tensor& attention_mask) {
  check(input_ids.shape == Shape({batch_, source_len_}) && attention_mask.shape == input_ids.shape,
        "incremental decoder: inputs " + input_ids.describe() + " / mask " +
            attention_mask.describe() + " for a decoder laid out for [" + std::to_string(batch_) +
            ", " + std::to_string(source_len_) + "]");
  std::memcpy(source_mask_.ptr, attention_mask.i32(), source_mask_.nbytes());
  {
    Arena measure = Arena::measuring();
    allocate_encoder(config_, measure, batch_, source_len_);
    Arena scratch(measure.used());
    EncoderScratch e = allocate_encoder(config_, scratch, batch_, source_len_);
    encoder_forward(config_, params_, input_ids, source_mask_, e, encoder_out_);
  }
  for (size_t i = 0; i < cross_.size(); ++i) {
    const AttentionParams& cross = params_.decoder_layers[i].encoder_attn;
    linear_forward(encoder_out_, cross.k_proj.weight, cross.k_proj.bias, cross_[i].k);
    linear_forward(encoder_out_, cross.v_proj.weight, cross.v_proj.bias, cross_[i].v);
  }
  length_ = 0;
  self_cache_.reset();
}

void BartIncrementalDecoder::reorder(std::span<const int32_t> sources) {
  self_cache_.reorder(sources);
}

const Tensor& BartIncrementalDecoder::step(std::span<const int32_t> tokens) {
  check(int64_t(tokens.size()) == rows_, "step: " + std::to_string(tokens.size()) + " tokens for " +
                                             std::to_string(rows_) + " rows");
  check(length_ < max_target_len_,
        "step: the decoder was laid out for " + std::to_string(max_target_len_) + " tokens");
  const BartConfig& c = config_;
  const BartParams& p = params_;
  const float eps = BartConfig::kLayerNormEps;
  const int64_t d = c.d_model, R = rows_, t = length_;
  self_cache_.grow(t);
  std::memcpy(tokens_.ptr, tokens.data(), tokens_.nbytes());

  embedding_forward(tokens_, p.shared, c.embed_scale(), residual_);
  add_position_embeddings(residual_, p.decoder_positions, BartConfig::kPositionOffset + t);
  layernorm_forward(residual_, p.decoder_layernorm_embedding.weight,
                    p.decoder_layernorm_embedding.bias, eps, hidden_, mean_, rstd_);

  const int64_t heads = c.decoder_attention_heads;
  const float scale = float(1.0 / std::sqrt(double(d / heads)));
  const AttentionMask all_keys{Tensor{}, false, 0, {}};  // every cached key precedes the query
  const AttentionMask source_keys{source_mask_, false, 0, {}};
  for (size_t i = 0; i < cross_.size(); ++i) {
    const BartDecoderLayerParams& lp = p.decoder_layers[i];

    // Self-attention over the cache plus this token.
    linear_forward(hidden_, lp.self_attn.q_proj.weight, lp.self_attn.q_proj.bias, q_);
    linear_forward(hidden_, lp.self_attn.k_proj.weight, lp.self_attn.k_proj.bias, k_new_);
    linear_forward(hidden_, lp.self_attn.v_proj.weight, lp.self_attn.v_proj.bias, v_new_);
    self_cache_.append(i, k_new_, v_new_, t);
    attention_forward(q_, self_cache_.keys(i), self_cache_.values(i), heads, scale, all_keys,
                      context_, Tensor{});
    linear_forward(context_, lp.self_attn.out_proj.weight, lp.self_attn.out_proj.bias, attn_out_);
    add(hidden_, attn_out_, residual_);
    layernorm_forward(residual_, lp.self_attn_layer_norm.weight, lp.self_attn_layer_norm.bias, eps,
                      hidden_, mean_, rstd_);

    // Cross-attention: the G rows of an input are G queries against its keys.
    const AttentionParams& cross = lp.encoder_attn;
    linear_forward(hidden_, cross.q_proj.weight, cross.q_proj.bias, q_);
    attention_forward(q_.view({batch_, group_, d}), cross_[i].k, cross_[i].v, heads, scale,
                      source_keys, context_.view({batch_, group_, d}), Tensor{});
    linear_forward(context_, cross.out_proj.weight, cross.out_proj.bias, attn_out_);
    add(hidden_, attn_out_, residual_);
    layernorm_forward(residual_, lp.encoder_attn_layer_norm.weight, lp.encoder_attn_layer_norm.bias,
                      eps, hidden_, mean_, rstd_);

    // Feed-forward.
    linear_forward(hidden_, lp.ffn.fc1.weight, lp.ffn.fc1.bias, fc1_);
    activation_forward(c.activation, fc1_, act_);
    linear_forward(act_, lp.ffn.fc2.weight, lp.ffn.fc2.bias, attn_out_);
    add(hidden_, attn_out_, residual_);
    layernorm_forward(residual_, lp.final_layer_norm.weight, lp.final_layer_norm.bias, eps, hidden_,
                      mean_, rstd_);
  }
  linear_forward(hidden_.view({R, d}), p.lm_head, p.final_logits_bias.view({c.vocab_size}),
                 logits_);
  ++length_;
  return logits_;
}

}  // namespace precis
