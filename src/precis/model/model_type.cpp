// The families' model_types and the model_type of a checkpoint (families.h): apart from the
// families' code, so that a program that only asks which family a directory holds (the config
// fuzzer) links none of it.
#include <nlohmann/json.hpp>

#include "precis/core/error.h"
#include "precis/core/json_input.h"
#include "precis/model/families.h"

namespace precis {

std::string known_model_types() {
  std::string out;
#define PRECIS_FAMILY_NAME(Model, Config, family) \
  out += std::string(out.empty() ? "" : ", ") + "\"" #family "\"";
  PRECIS_MODEL_FAMILIES(PRECIS_FAMILY_NAME)
#undef PRECIS_FAMILY_NAME
  return out;
}

// The model_type of a config.json, which must be a known family's.
std::string config_json_model_type(const std::filesystem::path& config_json) {
  const nlohmann::json j = read_json_file(config_json);
  const std::string source = config_json.string();
  check(j.is_object(), source + ": expected a JSON object, found " + std::string(j.type_name()));
  auto type = j.find("model_type");
  check(type != j.end() && type->is_string(),
        source + ": no \"model_type\" string; expected one of " + known_model_types());
  const std::string model_type = type->get<std::string>();
  with_model_family(model_type, source, [](auto) {});
  return model_type;
}

void throw_unknown_model_type(const std::string& model_type, const std::string& source) {
  throw Error(source + ": model_type " + json_quoted(model_type) +
              " is not a family precis knows (" + known_model_types() + ")");
}

std::string checkpoint_model_type(const std::filesystem::path& dir) {
  check(std::filesystem::is_directory(dir), dir.string() + ": not a model directory");
  return config_json_model_type(dir / "config.json");
}

}  // namespace precis
