// The model the GPU benchmarks run (bench/gpu/hf_peer.py's bart_large_config): bart-large's
// shape with facebook/bart-large-cnn's vocabulary of 50264, or with `tiny` a two-layer model
// of width 64 (a dry run of a driver).
#pragma once

#include "precis/model/bart/bart_config.h"

namespace precis::bench {

inline BartConfig bart_large_config(bool tiny) {
  BartConfig c;  // bart-large's shape by default
  c.vocab_size = 50264;
  if (tiny) {
    c.d_model = 64;
    c.encoder_layers = c.decoder_layers = 2;
    c.encoder_ffn_dim = c.decoder_ffn_dim = 128;
    c.encoder_attention_heads = c.decoder_attention_heads = 4;
  }
  return c;
}

}  // namespace precis::bench
