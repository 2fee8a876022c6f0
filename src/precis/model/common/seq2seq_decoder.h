// What generation needs from an encoder-decoder model: encode a batch once, then feed one
// token per row with a key/value cache, and reorder the rows between steps (beam search).
// BART (bart_incremental.h) and T5 (t5_incremental.h) implement it; generate() is written
// against it.
//
// Rows and inputs: B encoder inputs are decoded as R = B * G rows (G = beams or sequences
// per input); row r belongs to input r / G, transformers' repeat_interleave layout.
#pragma once

#include <cstdint>
#include <span>

#include "precis/core/tensor.h"

namespace precis {

class Seq2SeqDecoder {
 public:
  virtual ~Seq2SeqDecoder() = default;

  // Runs the encoder on input_ids (B, S) I32 with attention_mask (B, S) I32 (1 = token);
  // resets the decoder to length 0.
  virtual void encode(const Tensor& input_ids, const Tensor& attention_mask) = 0;
  // Feeds one token per row (R ids) at position length(); returns that position's logits,
  // (R, V) F32, valid until the next call (callers may process them in place).
  virtual const Tensor& step(std::span<const int32_t> tokens) = 0;
  // From the next step on, row r continues what row sources[r] holds now.
  virtual void reorder(std::span<const int32_t> sources) = 0;
  // From the next step on, only the inputs `kept` (ascending indices into the current batch)
  // are decoded, each with its G rows in order, a pending reorder applied first: batch() and
  // rows() shrink. Beam search drops an input whose search has ended (HF computes its rows on
  // and never reads them); every row's computation depends on its own input alone.
  virtual void keep_inputs(std::span<const int32_t> kept) = 0;

  virtual int64_t length() const = 0;  // tokens fed so far
  virtual int64_t rows() const = 0;
  virtual int64_t batch() const = 0;
};

}  // namespace precis
