// BART for generation: the encoder runs once per batch, then the decoder advances one token
// per row with a key/value cache, as transformers does with use_cache=True (spec §1.2.4).
//
// Rows and inputs: a batch of B encoder inputs (right-padded, with their attention mask)
// is decoded as R = B * G rows, G = rows_per_input (the beams, or the sequences sampled per
// input). Row r belongs to input r / G, which is transformers' repeat_interleave layout.
// Cross-attention keys/values are computed once per input, not per row: the G queries of an
// input attend to the same keys in one call.
//
// Self-attention cache: self_attention_cache.h.
//
// Numerics are those of bart_forward (same kernels, same order of operations per row), so
// step logits match the full forward up to floating-point reassociation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "precis/core/arena.h"
#include "precis/model/bart_model.h"
#include "precis/model/self_attention_cache.h"
#include "precis/model/seq2seq_decoder.h"

namespace precis {

class BartIncrementalDecoder final : public Seq2SeqDecoder {
 public:
  // `max_target_len`: the most tokens any row will be fed (generation's max_length).
  BartIncrementalDecoder(const BartConfig& config, const BartParams& params, int64_t batch,
                         int64_t source_len, int64_t rows_per_input, int64_t max_target_len);

  // Runs the encoder on input_ids (B, S) I32 with attention_mask (B, S) I32 (1 = token) and
  // fills the cross-attention cache. Resets the decoder to length 0.
  void encode(const Tensor& input_ids, const Tensor& attention_mask) override;

  // Feeds one token per row (R ids) at position length() and returns the logits of that
  // position, (R, V) F32 (valid until the next call). Applies a pending reorder first.
  const Tensor& step(std::span<const int32_t> tokens) override;

  // From the next step on, row r continues what row sources[r] holds now (R entries, each in
  // [0, R)): beam search's reorder_cache.
  void reorder(std::span<const int32_t> sources) override;

  int64_t length() const override { return length_; }  // tokens fed so far
  int64_t rows() const override { return rows_; }
  int64_t batch() const override { return batch_; }
  const Tensor& encoder_output() const { return encoder_out_; }  // (B, S, d)

 private:
  const BartConfig& config_;
  const BartParams& params_;
  int64_t batch_, source_len_, group_, rows_, max_target_len_;
  int64_t length_ = 0;
  Arena arena_;

  Tensor source_mask_;  // (B, S) I32
  Tensor encoder_out_;  // (B, S, d)
  struct CrossCache {
    Tensor k, v;  // (B, S, d)
  };
  std::vector<CrossCache> cross_;
  SelfAttentionCache self_cache_;

  // One step's activations, reused by every layer: (R, 1, ...) shapes.
  Tensor tokens_;  // (R, 1) I32
  Tensor hidden_;  // (R, 1, d) embeddings, then each sub-layer's normalised output
  Tensor q_, k_new_, v_new_, context_, attn_out_, residual_;  // (R, 1, d)
  Tensor mean_, rstd_;                                        // (R)
  Tensor fc1_, act_;                                          // (R, 1, ffn)
  Tensor logits_;                                             // (R, V)
};

}  // namespace precis
