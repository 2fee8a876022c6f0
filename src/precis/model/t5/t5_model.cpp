#include "precis/model/t5/t5_model.h"

namespace precis {

namespace {

std::vector<std::string> candidate_names(const std::string& name, const T5Config& c) {
  std::vector<std::string> names{name};
  if (name == "shared.weight") {
    names.push_back("encoder.embed_tokens.weight");
    names.push_back("decoder.embed_tokens.weight");
    if (c.tie_word_embeddings) names.push_back("lm_head.weight");
  }
  return names;
}

bool expected_leftover(const std::string& name) {
  return name.find("embed_tokens.weight") != std::string::npos || name == "lm_head.weight" ||
         name == "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight";
}

}  // namespace

PretrainedNaming pretrained_naming(const T5Config& config) {
  return {"T5", [config](const std::string& name) { return candidate_names(name, config); },
          expected_leftover};
}

}  // namespace precis
