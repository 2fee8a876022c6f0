// What BART's and T5's incremental decoders (bart_incremental.h, t5_incremental.h) share:
// the rows-and-inputs bookkeeping of seq2seq_decoder.h, the encoder output, the
// cross-attention keys/values, the self-attention cache (self_attention_cache.h), and the
// checks and cache moves around encode() and step(). A model adds its encoder, the layers of
// one decoding step, and that step's activations.
//
// Cross-attention keys/values are computed once per input, not per row: the G queries of an
// input attend to the same keys in one call.
//
// Mixed precision: given weights whose LM head is 16-bit (train::ComputeCopy::mixed: the
// multiplied weights and the linear layers' biases in bf16 or fp16, the rest the fp32 master),
// the decoder computes as HF's generate() does inside torch.autocast(bfloat16 / float16) (not
// what Seq2SeqTrainer(bf16=True)'s prediction does: it generates outside autocast, in fp32):
// each linear layer and attention takes 16-bit operands and rounds its output once, while the
// decoder's residual stream, its LayerNorm / RMSNorm outputs and the logits stay fp32 (the
// branch outputs widened before they join the stream; the LM head's product rounded, then
// widened, then BART's final_logits_bias added in fp32). The encoder, run once per batch, keeps
// its stream in fp32 the same way. CUDA only: the CPU computes fp32.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "precis/core/arena.h"
#include "precis/kernels/attention.h"
#include "precis/model/common/parameters.h"
#include "precis/model/common/self_attention_cache.h"
#include "precis/model/common/seq2seq_decoder.h"

namespace precis {

// A linear layer's input from an fp32 stream (below), for tensors of any shape: x itself when
// `rounded` is undefined or of x's dtype, else x rounded into `rounded` (of x's shape), as
// autocast casts F.linear's input.
const Tensor& rounded_for_linear(const Tensor& x, const Tensor& rounded);

class KvCachedDecoder : public Seq2SeqDecoder {
 public:
  // Runs the encoder on input_ids (B, S) I32 with attention_mask (B, S) I32 (1 = token) and
  // fills the cross-attention cache. Resets the decoder to length 0.
  void encode(const Tensor& input_ids, const Tensor& attention_mask) final;

  // Feeds one token per row (R ids) at position length() and returns the logits of that
  // position, (R, V) F32 (valid until the next call). Applies a pending reorder first.
  const Tensor& step(std::span<const int32_t> tokens) final;

  // From the next step on, row r continues what row sources[r] holds now (R entries, each in
  // [0, R)): beam search's reorder_cache.
  void reorder(std::span<const int32_t> sources) final { self_cache_.reorder(sources); }
  void keep_inputs(std::span<const int32_t> kept) final;

  int64_t length() const final { return length_; }  // tokens fed so far
  int64_t rows() const final { return rows_; }
  int64_t batch() const final { return batch_; }
  const Tensor& encoder_output() const { return encoder_out_; }  // (B, S, d)

 protected:
  // `max_target_len`: the most tokens any row will be fed (generation's max_length).
  // `compute`: F32, or the 16-bit type of mixed-precision weights (above).
  KvCachedDecoder(int64_t batch, int64_t source_len, int64_t rows_per_input, int64_t max_target_len,
                  DType compute);

  // Sizes arena_ and lays out in it the shared state for `layers` decoder layers (encoder
  // output of width d_model; keys and values of width attention_width, in `heads` heads), then
  // what `lay_out_step` allocates: the model's per-step activations, in the compute dtype
  // unless it names another (the residual stream's F32).
  void lay_out(int64_t layers, int64_t d_model, int64_t attention_width, int64_t heads,
               const std::function<void(Arena&)>& lay_out_step);

  // Self-attention of x (R, 1, d), the step's tokens at position t, over decoder layer
  // `layer`'s cache and themselves: their keys and values join the cache first. The output
  // projection lands in attn_.out. `p`'s biases may be undefined (T5 has none).
  void cached_self_attention(size_t layer, const AttentionParams& p, const Tensor& x, int64_t heads,
                             float scale, const AttentionMask& mask, int64_t t);
  // Cross-attention of x (R, 1, d) over layer `layer`'s cached encoder keys/values: the G rows
  // of an input are G queries against its keys. The output projection lands in attn_.out.
  void cached_cross_attention(size_t layer, const AttentionParams& p, const Tensor& x,
                              int64_t heads, float scale, const AttentionMask& mask);

  // x (R, 1, d) F32 as a linear layer takes it: x itself in fp32, else rounded to the compute
  // dtype (autocast's cast of F.linear's input), in a buffer the next call reuses.
  const Tensor& linear_input(const Tensor& x) { return rounded_for_linear(x, rounded_input_); }

  // An arena sized by `lay_out_all` (called on a measuring arena, then on the real one), whose
  // tensors default to the compute dtype: the encoder's scratch.
  Arena compute_arena(const std::function<void(Arena&)>& lay_out_all) const;

  // Fills encoder_out_ (B, S, d) from input_ids and source_mask_.
  virtual void run_encoder(const Tensor& input_ids) = 0;
  // The cross-attention of decoder layer `layer`, whose k/v projections fill the cache.
  virtual const AttentionParams& cross_attention(size_t layer) const = 0;
  // The decoder layers and LM head for tokens_ at position t; the self-attention cache has
  // grown to t + 1 and waits for each layer's new key and value. Returns the logits (R, V).
  virtual const Tensor& decode(int64_t t) = 0;
  // keep_inputs has left `rows` rows: the model's per-step tensors become their first rows.
  virtual void keep_rows(int64_t rows) = 0;

  int64_t batch_, source_len_, group_, rows_, max_target_len_;
  DType compute_;  // F32, or the 16-bit type of mixed-precision weights
  int64_t length_ = 0;
  Arena arena_;

  Tensor source_ids_, source_mask_;  // (B, S) I32, copied from the inputs to the model's device
  Tensor encoder_out_;               // (B, S, d)
  struct CrossCache {
    Tensor k, v;  // (B, S, attention width)
  };
  std::vector<CrossCache> cross_;
  SelfAttentionCache self_cache_;
  Tensor tokens_;  // (R, 1) I32 the step's input
  // One step's attention activations, reused by every layer.
  struct StepAttention {
    Tensor q, k_new, v_new, context;  // (R, 1, attention width)
    Tensor out;                       // (R, 1, d)
  };
  StepAttention attn_;
  // Mixed precision only: a linear layer's 16-bit input (R, 1, d).
  Tensor rounded_input_;
};

// A family's decoder: the KvCachedDecoder over that family's config and parameters.
template <class Config, class Params>
class KvCachedDecoderOf : public KvCachedDecoder {
 protected:
  KvCachedDecoderOf(const Config& config, const Params& params, int64_t batch, int64_t source_len,
                    int64_t rows_per_input, int64_t max_target_len)
      : KvCachedDecoder(batch, source_len, rows_per_input, max_target_len, params.lm_head.dtype),
        config_(config),
        params_(params) {}

  const Config& config_;
  const Params& params_;
};

}  // namespace precis
