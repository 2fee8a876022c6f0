// Scaled dot-product attention over heads packed in the last dimension, as BART lays
// them out after its projections: position t of head h is at [b, t, h*head_dim ...].
// Masked keys get exactly zero probability, which is what adding finfo(float32).min
// (Hugging Face's additive mask) gives; a row with every key masked becomes uniform, as
// it does there.
#pragma once

#include "precis/core/tensor.h"

namespace precis {

struct AttentionMask {
  Tensor key_padding;  // (B, Tk) I32, 1 = attend, 0 = padding; undefined = attend to all
  bool causal = false;  // query i sees keys j <= i + past
  int64_t past = 0;
};

// q (B, Tq, H*hd); k, v (B, Tk, H*hd); out (B, Tq, H*hd).
// probs (B, H, Tq, Tk): the softmax, kept for the backward; may be undefined (inference).
void attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                       float scale, const AttentionMask& mask, const Tensor& out,
                       const Tensor& probs);

}  // namespace precis
