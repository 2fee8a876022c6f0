// T5 for generation: the encoder runs once per batch, then the decoder advances one token
// per row with a key/value cache (seq2seq_decoder.h), as transformers does with use_cache.
// The self-attention bias of the token at position t is row t of the decoder's relative
// position bias against keys 0..t (HF's cache_position); cross-attention has none.
// Rows, inputs, the cross-attention and self-attention caches: kv_cached_decoder.h.
#pragma once

#include "precis/model/common/kv_cached_decoder.h"
#include "precis/model/t5/t5_layers.h"
#include "precis/model/t5/t5_model.h"

namespace precis {

class T5IncrementalDecoder final : public KvCachedDecoderOf<T5Config, T5Params> {
 public:
  T5IncrementalDecoder(const T5Config& config, const T5Params& params, int64_t batch,
                       int64_t source_len, int64_t rows_per_input, int64_t max_target_len);

 private:
  void run_encoder(const Tensor& input_ids) override;
  const AttentionParams& cross_attention(size_t layer) const override {
    return params_.decoder_blocks[layer].cross_attn;
  }
  const Tensor& decode(int64_t t) override;
  void keep_rows(int64_t rows) override;

  // One step's activations besides attn_, reused by every block: (R, 1, ...) shapes.
  // The residual stream's tensors are F32 under mixed precision too (kv_cached_decoder.h).
  Tensor hidden_;  // (R, 1, d) F32 the residual stream
  Tensor normed_;  // (R, 1, d) F32 a sub-layer's RMSNorm output
  Tensor rstd_;    // (R) F32
  Tensor bias_;    // (H, 1, max_target_len) F32: this step's bias row
  T5FeedForwardActivations ffn_;
  Tensor logits_;          // (R, V) F32
  Tensor rounded_logits_;  // (R, V) the LM head's 16-bit product, under mixed precision
};

}  // namespace precis
