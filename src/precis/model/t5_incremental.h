// T5 for generation: the encoder runs once per batch, then the decoder advances one token
// per row with a key/value cache (seq2seq_decoder.h), as transformers does with use_cache.
// The self-attention bias of the token at position t is row t of the decoder's relative
// position bias against keys 0..t (HF's cache_position); cross-attention has none.
// Cross-attention keys/values are computed once per input and shared by its G rows.
#pragma once

#include <vector>

#include "precis/core/arena.h"
#include "precis/model/self_attention_cache.h"
#include "precis/model/seq2seq_decoder.h"
#include "precis/model/t5_layers.h"
#include "precis/model/t5_model.h"

namespace precis {

class T5IncrementalDecoder final : public Seq2SeqDecoder {
 public:
  T5IncrementalDecoder(const T5Config& config, const T5Params& params, int64_t batch,
                       int64_t source_len, int64_t rows_per_input, int64_t max_target_len);

  void encode(const Tensor& input_ids, const Tensor& attention_mask) override;
  const Tensor& step(std::span<const int32_t> tokens) override;
  void reorder(std::span<const int32_t> sources) override { self_cache_.reorder(sources); }

  int64_t length() const override { return length_; }
  int64_t rows() const override { return rows_; }
  int64_t batch() const override { return batch_; }
  const Tensor& encoder_output() const { return encoder_out_; }  // (B, S, d)

 private:
  const T5Config& config_;
  const T5Params& params_;
  int64_t batch_, source_len_, group_, rows_, max_target_len_;
  int64_t length_ = 0;
  Arena arena_;

  Tensor source_mask_;  // (B, S) I32
  Tensor encoder_out_;  // (B, S, d)
  struct CrossCache {
    Tensor k, v;  // (B, S, H·d_kv)
  };
  std::vector<CrossCache> cross_;
  SelfAttentionCache self_cache_;

  // One step's activations, reused by every block: (R, 1, ...) shapes.
  Tensor tokens_;   // (R, 1) I32
  Tensor hidden_;   // (R, 1, d) the residual stream
  Tensor normed_;   // (R, 1, d) a sub-layer's RMSNorm output
  Tensor rstd_;     // (R)
  Tensor q_, k_new_, v_new_, context_;  // (R, 1, H·d_kv)
  Tensor attn_out_;                     // (R, 1, d)
  Tensor bias_;                         // (H, 1, max_target_len): this step's bias row
  T5FeedForwardActivations ffn_;
  Tensor logits_;  // (R, V)
};

}  // namespace precis
