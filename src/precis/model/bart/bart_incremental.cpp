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

// The encoder's scratch, reused by every layer (inference keeps no per-layer state), so its
// memory does not grow with depth. The stream (the sum before each LayerNorm, and its output)
// is fp32 under mixed precision too, as under autocast (kv_cached_decoder.h).
struct BartEncoderScratch {
  Tensor sum, hidden;       // (B, S, d) F32
  Tensor mean, rstd;        // (B * S) F32
  Tensor rounded;           // (B, S, d) mixed precision only: a linear layer's input
  AttentionActivations attention;
  FeedForwardActivations feed_forward;
};

BartEncoderScratch allocate_bart_encoder(const BartConfig& c, Arena& arena, int64_t B, int64_t S) {
  BartEncoderScratch e;
  e.sum = arena.alloc({B, S, c.d_model}, DType::F32);
  e.hidden = arena.alloc({B, S, c.d_model}, DType::F32);
  e.mean = arena.alloc({B * S}, DType::F32);
  e.rstd = arena.alloc({B * S}, DType::F32);
  if (arena.element_type() != DType::F32) e.rounded = arena.alloc({B, S, c.d_model});
  e.attention = allocate_attention(arena, B, S, S, c.d_model, c.encoder_attention_heads, false);
  e.feed_forward = allocate_feed_forward(arena, B, S, c.d_model, c.encoder_ffn_dim);
  return e;
}

// bart_forward's encoder, step for step (post-LN layers: x -> LN(x + SelfAttn(x)) -> LN(. +
// FFN(.))), with the stream in fp32; the output lands in `out` (B, S, d) of the compute dtype.
void bart_encoder_inference(const BartConfig& c, const BartParams& p, const Tensor& input_ids,
                            const Tensor& attention_mask, BartEncoderScratch& e,
                            const Tensor& out) {
  const float eps = BartConfig::kLayerNormEps;
  embedding_forward(input_ids, p.shared, c.embed_scale(), e.sum);
  add_position_embeddings(e.sum, p.encoder_positions, BartConfig::kPositionOffset);
  layernorm_forward(e.sum, p.encoder_layernorm_embedding.weight, p.encoder_layernorm_embedding.bias,
                    eps, e.hidden, e.mean, e.rstd);
  const AttentionMask source_mask{.key_padding = attention_mask};
  for (const BartEncoderLayerParams& lp : p.encoder_layers) {
    const Tensor& x = rounded_for_linear(e.hidden, e.rounded);
    attention_block_forward(lp.self_attn, x, x, c.encoder_attention_heads, source_mask,
                            e.attention);
    add_to_fp32(e.hidden, e.attention.out, e.sum);
    layernorm_forward(e.sum, lp.self_attn_layer_norm.weight, lp.self_attn_layer_norm.bias, eps,
                      e.hidden, e.mean, e.rstd);
    feed_forward_forward(lp.ffn, c.activation, rounded_for_linear(e.hidden, e.rounded),
                         e.feed_forward);
    add_to_fp32(e.hidden, e.feed_forward.fc2, e.sum);
    layernorm_forward(e.sum, lp.final_layer_norm.weight, lp.final_layer_norm.bias, eps, e.hidden,
                      e.mean, e.rstd);
  }
  convert(e.hidden, out);  // rounded as the cross-attention's k/v projections take it
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

void BartIncrementalDecoder::keep_rows(int64_t rows) {
  for (Tensor* t : {&hidden_, &residual_, &mean_, &rstd_, &fc1_, &act_, &logits_, &rounded_logits_})
    if (t->ptr) *t = t->slice(0, rows);
}

void BartIncrementalDecoder::run_encoder(const Tensor& input_ids) {
  BartEncoderScratch e;
  Arena scratch =
      compute_arena([&](Arena& a) { e = allocate_bart_encoder(config_, a, batch_, source_len_); });
  bart_encoder_inference(config_, params_, input_ids, source_mask_, e, encoder_out_);
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
    add_to_fp32(hidden_, attn_.out, residual_);
    layernorm_forward(residual_, lp.self_attn_layer_norm.weight, lp.self_attn_layer_norm.bias, eps,
                      hidden_, mean_, rstd_);

    cached_cross_attention(i, lp.encoder_attn, linear_input(hidden_), heads, scale, source_keys);
    add_to_fp32(hidden_, attn_.out, residual_);
    layernorm_forward(residual_, lp.encoder_attn_layer_norm.weight, lp.encoder_attn_layer_norm.bias,
                      eps, hidden_, mean_, rstd_);

    // Feed-forward.
    linear_forward(linear_input(hidden_), lp.ffn.fc1.weight, lp.ffn.fc1.bias, fc1_);
    activation_forward(c.activation, fc1_, act_);
    linear_forward(act_, lp.ffn.fc2.weight, lp.ffn.fc2.bias, attn_.out);
    add_to_fp32(hidden_, attn_.out, residual_);
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
