#include "precis/model/families.h"

#include "precis/model/common/config_fields.h"

namespace precis {

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
  return config_json_model_type(config_name_file(name_or_path, known_preset_names()));
}

AnyModel load_any_model(const std::filesystem::path& dir) {
  return with_model_family(
      checkpoint_model_type(dir), (dir / "config.json").string(),
      [&]<class Model>(std::type_identity<Model>) -> AnyModel { return Model::load(dir); });
}

}  // namespace precis
