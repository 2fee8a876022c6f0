// Which backward stage finishes each tensor's gradient, found by where the tensor sits in the
// family's parameter structs (bart_stages.h, t5_stages.h).
#include "precis/model/bart/bart_stages.h"
#include "precis/model/t5/t5_stages.h"

namespace precis {

namespace {

// Whether `slot` is one of the tensors of the struct `part`.
template <class Part>
bool inside(const Tensor* slot, const Part& part) {
  const char* p = reinterpret_cast<const char*>(slot);
  const char* begin = reinterpret_cast<const char*>(&part);
  return p >= begin && p < begin + sizeof(Part);
}

}  // namespace

int backward_stage(const BartConfig& c, const BartParams& p, const Tensor* slot) {
  if (slot == &p.lm_head && !c.tie_word_embeddings) return bart_stages::lm_head();
  for (size_t i = 0; i < p.decoder_layers.size(); ++i)
    if (inside(slot, p.decoder_layers[i])) return bart_stages::decoder_layer(c, int64_t(i));
  if (slot == &p.decoder_positions || inside(slot, p.decoder_layernorm_embedding))
    return bart_stages::decoder_embeddings(c);
  for (size_t i = 0; i < p.encoder_layers.size(); ++i)
    if (inside(slot, p.encoder_layers[i])) return bart_stages::encoder_layer(c, int64_t(i));
  return bart_stages::encoder_embeddings(c);  // shared, the encoder's embeddings
}

int backward_stage(const T5Config& c, const T5Params& p, const Tensor* slot) {
  if (slot == &p.decoder_final_norm || (slot == &p.lm_head && !c.tie_word_embeddings))
    return t5_stages::decoder_head();
  if (slot == &p.decoder_relative_bias) return t5_stages::decoder_block(c, 0);
  for (size_t i = 0; i < p.decoder_blocks.size(); ++i)
    if (inside(slot, p.decoder_blocks[i])) return t5_stages::decoder_block(c, int64_t(i));
  if (slot == &p.encoder_final_norm) return t5_stages::encoder_final_norm(c);
  if (slot == &p.encoder_relative_bias) return t5_stages::encoder_block(c, 0);
  for (size_t i = 0; i < p.encoder_blocks.size(); ++i)
    if (inside(slot, p.encoder_blocks[i])) return t5_stages::encoder_block(c, int64_t(i));
  return t5_stages::embeddings(c);  // shared (and a tied LM head)
}

}  // namespace precis
