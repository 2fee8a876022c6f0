#include "precis/model/t5/t5_model.h"

namespace precis {

namespace {

// HF's T5 may also save a relative_attention_bias on the decoder's first cross-attention,
// which T5 never uses.
bool t5_expected_leftover(const std::string& name) {
  return is_shared_embedding_alias(name) ||
         name == "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight";
}

}  // namespace

PretrainedNaming pretrained_naming(const T5Config& config) {
  return {"T5",
          [config](const std::string& name) {
            return shared_embedding_candidates(name, "", config.tie_word_embeddings);
          },
          t5_expected_leftover};
}

}  // namespace precis
