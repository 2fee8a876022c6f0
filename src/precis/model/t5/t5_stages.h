// The stages of t5_backward (T5GradScratch::stage_done), in the order it finishes the
// gradients: an untied LM head with the decoder's final norm first, each decoder block from
// the last (block 0 with the relative bias table every block adds to), the encoder's final
// norm, each encoder block from the last, and last the shared token embedding (a tied LM head
// is that tensor).
#pragma once

#include "precis/model/t5/t5_params.h"

namespace precis::t5_stages {

inline int decoder_head() { return 0; }
inline int decoder_block(const T5Config& c, int64_t i) {
  return int(1 + (c.num_decoder_layers - 1 - i));
}
inline int encoder_final_norm(const T5Config& c) { return int(c.num_decoder_layers + 1); }
inline int encoder_block(const T5Config& c, int64_t i) {
  return int(c.num_decoder_layers + 2 + (c.num_layers - 1 - i));
}
inline int embeddings(const T5Config& c) { return int(c.num_decoder_layers + c.num_layers + 2); }

}  // namespace precis::t5_stages

namespace precis {

// The stage after which nothing adds to the gradient of `slot`, a tensor of `params`.
int backward_stage(const T5Config& config, const T5Params& params, const Tensor* slot);
inline int final_backward_stage(const T5Config& c) { return t5_stages::embeddings(c); }

}  // namespace precis
