#include "precis/model/families.h"

#include "precis/core/error.h"
#include "precis/core/json_input.h"

namespace precis {

namespace {

// config_name's file: the path itself, or the config.json of a directory.
std::filesystem::path config_json_of(const std::string& name_or_path) {
  std::filesystem::path p(name_or_path);
  return std::filesystem::is_directory(p) ? p / "config.json" : p;
}

}  // namespace

std::string known_preset_names() {
  std::string out;
#define PRECIS_FAMILY_PRESETS(Model, Config, family) \
  out += (out.empty() ? "" : ", ") + family##_preset_names();
  PRECIS_MODEL_FAMILIES(PRECIS_FAMILY_PRESETS)
#undef PRECIS_FAMILY_PRESETS
  return out;
}

std::string config_model_type(const std::string& name_or_path) {
#define PRECIS_FAMILY_PRESET(Model, Config, family) \
  if (family##_preset(name_or_path)) return #family;
  PRECIS_MODEL_FAMILIES(PRECIS_FAMILY_PRESET)
#undef PRECIS_FAMILY_PRESET
  const std::filesystem::path config_json = config_json_of(name_or_path);
  check(std::filesystem::is_regular_file(config_json),
        "config_name " + json_quoted(name_or_path) + " is neither a preset (" +
            known_preset_names() + ") nor a config.json file or model directory");
  return config_json_model_type(config_json);
}

AnyModel load_any_model(const std::filesystem::path& dir) {
  return with_model_family(
      checkpoint_model_type(dir), (dir / "config.json").string(),
      [&]<class Model>(std::type_identity<Model>) -> AnyModel { return Model::load(dir); });
}

}  // namespace precis
