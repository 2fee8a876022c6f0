// The stages of bart_backward: it finishes the gradients in this order, and reports each
// stage as it ends (BartGradScratch::stage_done) so that data parallelism can all-reduce
// every gradient that is final by then. The LM head first, each decoder layer from the last,
// the decoder embeddings, each encoder layer from the last, and last the encoder embeddings
// with the shared token embedding (which both stacks add to).
#pragma once

#include "precis/model/bart/bart_params.h"

namespace precis::bart_stages {

inline int lm_head() { return 0; }
inline int decoder_layer(const BartConfig& c, int64_t i) { return int(c.decoder_layers - 1 - i); }
inline int decoder_embeddings(const BartConfig& c) { return int(c.decoder_layers); }
inline int encoder_layer(const BartConfig& c, int64_t i) {
  return int(c.decoder_layers + 1 + (c.encoder_layers - 1 - i));
}
inline int encoder_embeddings(const BartConfig& c) {
  return int(c.decoder_layers + c.encoder_layers + 1);
}

}  // namespace precis::bart_stages

namespace precis {

// The stage after which nothing adds to the gradient of `slot`, a tensor of `params` (by
// where it sits in the parameter structs, not by its name).
int backward_stage(const BartConfig& config, const BartParams& params, const Tensor* slot);
inline int final_backward_stage(const BartConfig& c) { return bart_stages::encoder_embeddings(c); }

}  // namespace precis
