// A T5 preset shrunk to a test's sizes. The tests of whole-model code paths (training on each
// backend, the backward's stages, the compute copy) need the preset's structure (activation,
// gated FFN, tied or untied head, relative position buckets), not its size.
#pragma once

#include <cstdint>
#include <string>

#include "precis/model/t5/t5_init.h"

namespace precis::testing {

struct T5Sizes {
  int64_t vocab_size, d_model, d_ff, d_kv, num_heads, num_layers, num_decoder_layers;
};

inline T5Config small_t5(const std::string& preset, const T5Sizes& sizes) {
  T5Config c = t5_config_from(preset);
  c.vocab_size = sizes.vocab_size;
  c.d_model = sizes.d_model;
  c.d_ff = sizes.d_ff;
  c.d_kv = sizes.d_kv;
  c.num_heads = sizes.num_heads;
  c.num_layers = sizes.num_layers;
  c.num_decoder_layers = sizes.num_decoder_layers;
  return c;
}

}  // namespace precis::testing
