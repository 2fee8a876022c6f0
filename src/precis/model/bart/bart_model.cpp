#include "precis/model/bart/bart_model.h"

namespace precis {

namespace {

// Names under which HF checkpoints may hold `name`: the name itself, then (for the tied
// embedding) its aliases, each also without the "model." prefix of BartForConditionalGeneration.
std::vector<std::string> candidate_names(const std::string& name, const BartConfig& c) {
  std::vector<std::string> names{name};
  if (name == "model.shared.weight") {
    names.push_back("model.encoder.embed_tokens.weight");
    names.push_back("model.decoder.embed_tokens.weight");
    if (c.tie_word_embeddings) names.push_back("lm_head.weight");
  }
  std::vector<std::string> all = names;
  for (const auto& n : names)
    if (n.rfind("model.", 0) == 0) all.push_back(n.substr(6));
  return all;
}

// Aliases of what was loaded, and per-stack version counters of old fairseq ports, are
// expected leftovers.
bool expected_leftover(const std::string& name) {
  return name.find("embed_tokens.weight") != std::string::npos || name == "lm_head.weight" ||
         name.find(".version") != std::string::npos;
}

}  // namespace

PretrainedNaming pretrained_naming(const BartConfig& config) {
  return {"BART", [config](const std::string& name) { return candidate_names(name, config); },
          expected_leftover};
}

}  // namespace precis
