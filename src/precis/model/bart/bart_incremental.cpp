#include "precis/model/bart/bart_incremental.h"

#include <cmath>
#include <utility>

#include "precis/kernels/attention.h"
#include "precis/kernels/convert.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/layernorm.h"
#include "precis/kernels/linear.h"
#include "precis/model/bart/bart.h"
#include "precis/model/common/layers.h"

namespace precis {

namespace {

// The encoder alternates two layers' activations (inference keeps no per-layer state), so
// its memory does not grow with depth.
struct EncoderScratch {
  Tensor embedded;  // (B, S, d)
  LayerNormActivations layernorm_embedding;
  BartEncoderLayerActivations layers[2];
};

EncoderScratch allocate_encoder(const BartConfig& c, Arena& arena, int64_t B, int64_t S) {
  EncoderScratch e;
  e.embedded = arena.alloc({B, S, c.d_model});
  e.layernorm_embedding = allocate_layer_norm(arena, B, S, c.d_model);
  e.layers[0] = allocate_encoder_layer(c, arena, B, S, false);
  e.layers[1] = allocate_encoder_layer(c, arena, B, S, false);
  return e;
}

// The encoder of bart_forward, step for step; the output is copied to `out` (B, S, d).
void encoder_forward(const BartConfig& c, const BartParams& p, const Tensor& input_ids,
                     const Tensor& attention_mask, EncoderScratch& e, const Tensor& out) {
  embedding_forward(input_ids, p.shared, c.embed_scale(), e.embedded);
  add_position_embeddings(e.embedded, p.encoder_positions, BartConfig::kPositionOffset);
  layer_norm_forward(p.encoder_layernorm_embedding, e.embedded, BartConfig::kLayerNormEps,
                     e.layernorm_embedding);
  AttentionMask source_mask{.key_padding = attention_mask};
  const Tensor* h = &e.layernorm_embedding.out;
  for (size_t i = 0; i < p.encoder_layers.size(); ++i) {
    BartEncoderLayerActivations& la = e.layers[i % 2];
    bart_encoder_layer_forward(c, p.encoder_layers[i], *h, source_mask, DropoutContext{},
                               uint32_t(i), la);
    h = &la.final_layer_norm.out;
  }
  copy(*h, out);
}

}  // namespace

BartIncrementalDecoder::BartIncrementalDecoder(const BartConfig& config, const BartParams& params,
                                               int64_t batch, int64_t source_len,
                                               int64_t rows_per_input, int64_t max_target_len)
    : KvCachedDecoderOf(config, params, batch, source_len, rows_per_input, max_target_len) {
  check(max_target_len <= config.max_position_embeddings,
        "generation length " + std::to_string(max_target_len) +
            " exceeds the model's max_position_embeddings (" +
            std::to_string(config.max_position_embeddings) + ")");
  const int64_t d = config.d_model, R = rows_;
  lay_out(config.decoder_layers, d, d, config.decoder_attention_heads, [&](Arena& a) {
    hidden_ = a.alloc({R, 1, d}, DType::F32);
    residual_ = a.alloc({R, 1, d}, DType::F32);
    mean_ = a.alloc({R}, DType::F32);
    rstd_ = a.alloc({R}, DType::F32);
    fc1_ = a.alloc({R, 1, config.decoder_ffn_dim});
    act_ = a.alloc({R, 1, config.decoder_ffn_dim});
    logits_ = a.alloc({R, config.vocab_size}, DType::F32);
    if (compute_ != DType::F32) rounded_logits_ = a.alloc({R, config.vocab_size});
  });
}

void BartIncrementalDecoder::run_encoder(const Tensor& input_ids) {
  EncoderScratch e;
  Arena scratch =
      compute_arena([&](Arena& a) { e = allocate_encoder(config_, a, batch_, source_len_); });
  encoder_forward(config_, params_, input_ids, source_mask_, e, encoder_out_);
}

const Tensor& BartIncrementalDecoder::decode(int64_t t) {
  const BartConfig& c = config_;
  const BartParams& p = params_;
  const float eps = BartConfig::kLayerNormEps;
  const int64_t d = c.d_model, R = rows_;

  embedding_forward(tokens_, p.shared, c.embed_scale(), residual_);
  add_position_embeddings(residual_, p.decoder_positions, BartConfig::kPositionOffset + t);
  layernorm_forward(residual_, p.decoder_layernorm_embedding.weight,
                    p.decoder_layernorm_embedding.bias, eps, hidden_, mean_, rstd_);

  const int64_t heads = c.decoder_attention_heads;
  const float scale = float(1.0 / std::sqrt(double(d / heads)));
  const AttentionMask all_keys{};  // every cached key precedes the query
  const AttentionMask source_keys{.key_padding = source_mask_};
  for (size_t i = 0; i < cross_.size(); ++i) {
    const BartDecoderLayerParams& lp = p.decoder_layers[i];

    cached_self_attention(i, lp.self_attn, linear_input(hidden_), heads, scale, all_keys, t);
    add_branch(hidden_, attn_.out, residual_);
    layernorm_forward(residual_, lp.self_attn_layer_norm.weight, lp.self_attn_layer_norm.bias, eps,
                      hidden_, mean_, rstd_);

    cached_cross_attention(i, lp.encoder_attn, linear_input(hidden_), heads, scale, source_keys);
    add_branch(hidden_, attn_.out, residual_);
    layernorm_forward(residual_, lp.encoder_attn_layer_norm.weight, lp.encoder_attn_layer_norm.bias,
                      eps, hidden_, mean_, rstd_);

    // Feed-forward.
    linear_forward(linear_input(hidden_), lp.ffn.fc1.weight, lp.ffn.fc1.bias, fc1_);
    activation_forward(c.activation, fc1_, act_);
    linear_forward(act_, lp.ffn.fc2.weight, lp.ffn.fc2.bias, attn_.out);
    add_branch(hidden_, attn_.out, residual_);
    layernorm_forward(residual_, lp.final_layer_norm.weight, lp.final_layer_norm.bias, eps, hidden_,
                      mean_, rstd_);
  }
  const Tensor bias = p.final_logits_bias.view({c.vocab_size});
  if (compute_ == DType::F32) {
    linear_forward(hidden_.view({R, d}), p.lm_head, bias, logits_);
    return logits_;
  }
  // Autocast rounds lm_head's product to 16 bits; BartForConditionalGeneration then adds the
  // fp32 final_logits_bias, which promotes the sum to fp32: widened, then the bias added in
  // fp32 (as one row of position embeddings added to every row).
  linear_forward(linear_input(hidden_).view({R, d}), p.lm_head, Tensor{}, rounded_logits_);
  convert(rounded_logits_, logits_);
  add_position_embeddings(logits_.view({R, 1, c.vocab_size}), bias.view({1, c.vocab_size}), 0);
  return logits_;
}

}  // namespace precis
