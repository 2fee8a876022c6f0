#include "precis/model/bart/bart_model.h"

namespace precis {

namespace {

// Names under which HF checkpoints may hold `name`: the name itself, then (for the tied
// embedding) its aliases, each also without the "model." prefix of BartForConditionalGeneration.
std::vector<std::string> candidate_names(const std::string& name, const BartConfig& c) {
  const std::vector<std::string> names =
      shared_embedding_candidates(name, "model.", c.tie_word_embeddings);
  std::vector<std::string> all = names;
  for (const auto& n : names)
    if (n.rfind("model.", 0) == 0) all.push_back(n.substr(6));
  return all;
}

// Aliases of what was loaded, and per-stack version counters of old fairseq ports, are
// expected leftovers.
bool bart_expected_leftover(const std::string& name) {
  return is_shared_embedding_alias(name) || name.find(".version") != std::string::npos;
}

}  // namespace

PretrainedNaming pretrained_naming(const BartConfig& config) {
  return {"BART", [config](const std::string& name) { return candidate_names(name, config); },
          bart_expected_leftover};
}

}  // namespace precis
