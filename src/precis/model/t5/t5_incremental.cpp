#include "precis/model/t5/t5_incremental.h"

#include <cstring>

#include "precis/kernels/attention.h"
#include "precis/kernels/convert.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/linear.h"
#include "precis/kernels/relative_position.h"
#include "precis/kernels/rms_norm.h"
#include "precis/model/common/layers.h"
#include "precis/model/t5/t5.h"
#include "precis/model/t5/t5_layers.h"

namespace precis {

namespace {

// The encoder's scratch, reused by every block, with the stream (and the norms' outputs) in fp32
// under mixed precision too, as under autocast (kv_cached_decoder.h).
struct T5EncoderScratch {
  Tensor stream, normed;    // (B, S, d) F32
  Tensor rstd;              // (B * S) F32
  Tensor bias;              // (H, S, S) F32: the encoder's relative position bias
  Tensor rounded;           // (B, S, d) mixed precision only: a linear layer's input
  AttentionActivations attention;
  T5FeedForwardActivations feed_forward;
};

T5EncoderScratch allocate_t5_encoder(const T5Config& c, Arena& arena, int64_t B, int64_t S) {
  T5EncoderScratch e;
  const int64_t d = c.d_model;
  e.stream = arena.alloc({B, S, d}, DType::F32);
  e.normed = arena.alloc({B, S, d}, DType::F32);
  e.rstd = arena.alloc({B * S}, DType::F32);
  e.bias = arena.alloc({c.num_heads, S, S}, DType::F32);
  if (arena.element_type() != DType::F32) e.rounded = arena.alloc({B, S, d});
  e.attention = allocate_attention(arena, B, S, S, d, c.inner_dim(), c.num_heads, false);
  e.feed_forward = allocate_t5_feed_forward(c, arena, B, S);
  return e;
}

// t5_encoder_forward's steps (pre-norm blocks: h += SelfAttn(norm(h)); h += FF(norm(h)); then
// the final norm), with the stream in fp32; the output lands in `out` (B, S, d) of the compute
// dtype.
void t5_encoder_inference(const T5Config& c, const T5Params& p, const Tensor& input_ids,
                          const Tensor& attention_mask, T5EncoderScratch& e, const Tensor& out) {
  const float eps = float(c.layer_norm_epsilon);
  embedding_forward(input_ids, p.shared, 1.0f, e.stream);
  relative_position_bias_forward(p.encoder_relative_bias, c.buckets(false), 0, e.bias);
  const AttentionMask source_mask{.key_padding = attention_mask, .position_bias = e.bias};
  for (const T5EncoderBlockParams& lp : p.encoder_blocks) {
    rms_norm_forward(e.stream, lp.self_attn_norm, eps, e.normed, e.rstd);
    const Tensor& x = rounded_for_linear(e.normed, e.rounded);
    attention_block_forward(lp.self_attn, x, x, c.num_heads, source_mask, e.attention,
                            AttentionScaling::none());
    add_to_fp32(e.stream, e.attention.out, e.stream);
    rms_norm_forward(e.stream, lp.ffn_norm, eps, e.normed, e.rstd);
    t5_feed_forward_forward(c, lp.ffn, rounded_for_linear(e.normed, e.rounded), BlockDropout{},
                            e.feed_forward);
    add_to_fp32(e.stream, e.feed_forward.ff.fc2, e.stream);
  }
  rms_norm_forward(e.stream, p.encoder_final_norm, eps, e.normed, e.rstd);
  convert(e.normed, out);  // rounded as the cross-attention's k/v projections take it
}

}  // namespace

T5IncrementalDecoder::T5IncrementalDecoder(const T5Config& config, const T5Params& params,
                                           int64_t batch, int64_t source_len,
                                           int64_t rows_per_input, int64_t max_target_len)
    : KvCachedDecoderOf(config, params, batch, source_len, rows_per_input, max_target_len) {
  const int64_t d = config.d_model, inner = config.inner_dim(), R = rows_;
  lay_out(config.num_decoder_layers, d, inner, config.num_heads, [&](Arena& a) {
    hidden_ = a.alloc({R, 1, d}, DType::F32);
    normed_ = a.alloc({R, 1, d}, DType::F32);
    rstd_ = a.alloc({R}, DType::F32);
    bias_ = a.alloc({config.num_heads, 1, max_target_len_}, DType::F32);
    ffn_ = allocate_t5_feed_forward(config, a, R, 1);
    logits_ = a.alloc({R, config.vocab_size}, DType::F32);
    if (compute_ != DType::F32) rounded_logits_ = a.alloc({R, config.vocab_size});
  });
}

void T5IncrementalDecoder::keep_rows(int64_t rows) {
  for (Tensor* t : {&hidden_, &normed_, &rstd_, &ffn_.ff.fc1, &ffn_.ff.act, &ffn_.ff.fc2,
                    &ffn_.gate, &ffn_.up, &logits_, &rounded_logits_})
    if (t->ptr) *t = t->slice(0, rows);
}

void T5IncrementalDecoder::run_encoder(const Tensor& input_ids) {
  T5EncoderScratch e;
  Arena scratch =
      compute_arena([&](Arena& a) { e = allocate_t5_encoder(config_, a, batch_, source_len_); });
  t5_encoder_inference(config_, params_, input_ids, source_mask_, e, encoder_out_);
}

const Tensor& T5IncrementalDecoder::decode(int64_t t) {
  const T5Config& c = config_;
  const T5Params& p = params_;
  const float eps = float(c.layer_norm_epsilon);
  const int64_t d = c.d_model, R = rows_, H = c.num_heads;
  embedding_forward(tokens_, p.shared, 1.0f, hidden_);

  Tensor bias = bias_.prefix({H, 1, t + 1});
  relative_position_bias_forward(p.decoder_relative_bias, c.buckets(true), t, bias);
  const AttentionMask cached_keys{.position_bias = bias};  // every cached key precedes the query
  const AttentionMask source_keys{.key_padding = source_mask_};
  for (size_t i = 0; i < cross_.size(); ++i) {
    const T5DecoderBlockParams& lp = p.decoder_blocks[i];

    // Self-attention over the cache plus this token, with this position's bias row.
    rms_norm_forward(hidden_, lp.self_attn_norm, eps, normed_, rstd_);
    cached_self_attention(i, lp.self_attn, linear_input(normed_), H, 1.0f, cached_keys, t);
    add_to_fp32(hidden_, attn_.out, hidden_);

    // Cross-attention: the G rows of an input are G queries against its keys.
    rms_norm_forward(hidden_, lp.cross_attn_norm, eps, normed_, rstd_);
    cached_cross_attention(i, lp.cross_attn, linear_input(normed_), H, 1.0f, source_keys);
    add_to_fp32(hidden_, attn_.out, hidden_);

    rms_norm_forward(hidden_, lp.ffn_norm, eps, normed_, rstd_);
    t5_feed_forward_forward(c, lp.ffn, linear_input(normed_), BlockDropout{}, ffn_);
    add_to_fp32(hidden_, ffn_.ff.fc2, hidden_);
  }
  rms_norm_forward(hidden_, p.decoder_final_norm, eps, normed_, rstd_);
  if (c.tie_word_embeddings) scale_in_place(normed_, c.lm_head_scale());
  if (compute_ == DType::F32) {
    linear_forward(normed_.view({R, d}), p.lm_head, Tensor{}, logits_);
    return logits_;
  }
  // Autocast rounds lm_head's product; generate() scores the logits in fp32, widened exactly.
  linear_forward(linear_input(normed_).view({R, d}), p.lm_head, Tensor{}, rounded_logits_);
  convert(rounded_logits_, logits_);
  return logits_;
}

}  // namespace precis
