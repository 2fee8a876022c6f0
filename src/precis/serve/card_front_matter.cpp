#include "precis/serve/card_front_matter.h"

#include <yaml-cpp/yaml.h>

#include "precis/serve/markdown.h"

namespace precis::serve {
namespace {

// The card's front matter as YAML; a null node when there is none or it does not parse.
YAML::Node front_matter_yaml(std::string_view readme) {
  CardParts parts = split_front_matter(readme);
  if (parts.front_matter.empty()) return YAML::Node();
  try {
    return YAML::Load(parts.front_matter);
  } catch (const YAML::Exception&) {
    return YAML::Node();
  }
}

// `node[key]` as a non-empty string, when it is a scalar.
std::optional<std::string> scalar_text(const YAML::Node& node, const char* key) {
  if (!node.IsMap() || !node[key] || !node[key].IsScalar()) return std::nullopt;
  std::string text = node[key].as<std::string>();
  if (text.empty()) return std::nullopt;
  return text;
}

}  // namespace

std::optional<std::string> widget_example(std::string_view readme) {
  const YAML::Node front = front_matter_yaml(readme);
  if (!front.IsMap() || !front["widget"] || !front["widget"].IsSequence()) return std::nullopt;
  for (const auto& entry : front["widget"])
    if (auto text = scalar_text(entry, "text")) return text;
  return std::nullopt;
}

std::optional<std::string> card_model_name(std::string_view readme) {
  const YAML::Node front = front_matter_yaml(readme);
  if (!front.IsMap() || !front["model-index"] || !front["model-index"].IsSequence() ||
      front["model-index"].size() == 0)
    return std::nullopt;
  return scalar_text(front["model-index"][0], "name");
}

}  // namespace precis::serve
