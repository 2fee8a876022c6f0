// BART for generation: the encoder runs once per batch, then the decoder advances one token
// per row with a key/value cache, as transformers does with use_cache=True (transformers 4.44
// models/bart/modeling_bart.py, BartAttention.forward's past_key_value and
// BartForConditionalGeneration._reorder_cache).
//
// Rows, inputs, the cross-attention and self-attention caches: kv_cached_decoder.h.
//
// Numerics are those of bart_forward (same kernels, same order of operations per row), so
// step logits match the full forward up to floating-point reassociation.
#pragma once

#include "precis/model/bart/bart_model.h"
#include "precis/model/common/kv_cached_decoder.h"

namespace precis {

class BartIncrementalDecoder final : public KvCachedDecoderOf<BartConfig, BartParams> {
 public:
  BartIncrementalDecoder(const BartConfig& config, const BartParams& params, int64_t batch,
                         int64_t source_len, int64_t rows_per_input, int64_t max_target_len);

 private:
  void run_encoder(const Tensor& input_ids) override;
  const AttentionParams& cross_attention(size_t layer) const override {
    return params_.decoder_layers[layer].encoder_attn;
  }
  const Tensor& decode(int64_t t) override;

  // One step's activations besides attn_, reused by every layer: (R, 1, ...) shapes.
  // The residual stream's tensors are F32 under mixed precision too (kv_cached_decoder.h).
  void keep_rows(int64_t rows) override;

  Tensor hidden_;          // (R, 1, d) F32 embeddings, then each sub-layer's normalised output
  Tensor residual_;        // (R, 1, d) F32
  Tensor mean_, rstd_;     // (R) F32
  Tensor fc1_, act_;       // (R, 1, ffn)
  Tensor logits_;          // (R, V) F32
  Tensor rounded_logits_;  // (R, V) the LM head's 16-bit product, under mixed precision
};

}  // namespace precis
