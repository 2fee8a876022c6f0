// The model families precis knows, one line each in PRECIS_MODEL_FAMILIES. What is written
// once over all families expands that list: the explicit instantiations of the templates in
// model/common/, train/ and eval/, AnyModel, and the choice of a checkpoint's family by its
// config.json's model_type. A family is its folder, with a <family>_family.h (see
// bart/bart_family.h), and one line here; docs/architecture.md has the checklist.
#pragma once

#include <filesystem>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "precis/model/bart/bart_family.h"
#include "precis/model/t5/t5_family.h"

// X(Model, Config, family): the family's model and config types, and its name: config.json's
// model_type, and the prefix of its presets' functions in <family>_init.h
// (<family>_preset(name) -> std::optional<Config>, <family>_preset_names()).
#define PRECIS_MODEL_FAMILIES(X) \
  X(BartModel, BartConfig, bart) \
  X(T5Model, T5Config, t5)

namespace precis {

namespace family_list {
template <class... Models>
struct List {
  using Variant = std::variant<Models...>;
};
template <class... Models, class Model>
List<Models..., Model> operator+(List<Models...>, std::type_identity<Model>);
#define PRECIS_FAMILY_MODEL_TYPE(Model, Config, family) +std::type_identity<Model>()
using All = decltype(List<>() PRECIS_MODEL_FAMILIES(PRECIS_FAMILY_MODEL_TYPE));
#undef PRECIS_FAMILY_MODEL_TYPE
}  // namespace family_list

// A model of any family.
using AnyModel = family_list::All::Variant;

// The families' model_types, quoted, for messages: "bart", "t5".
std::string known_model_types();
// Every family's size presets (config_name without a config.json), for messages.
std::string known_preset_names();

[[noreturn]] void throw_unknown_model_type(const std::string& model_type,
                                           const std::string& source);

// f(std::type_identity<Model>{}) for the family whose model_type this is; an unknown one is an
// error naming `source` (where it was read) and the known ones.
template <class F>
decltype(auto) with_model_family(const std::string& model_type, const std::string& source, F&& f) {
#define PRECIS_FAMILY_CASE(Model, Config, family) \
  if (model_type == #family) return std::forward<F>(f)(std::type_identity<Model>{});
  PRECIS_MODEL_FAMILIES(PRECIS_FAMILY_CASE)
#undef PRECIS_FAMILY_CASE
  throw_unknown_model_type(model_type, source);
}

// A checkpoint directory's family: its config.json's model_type, which must name one
// (errors name the directory or the file).
std::string checkpoint_model_type(const std::filesystem::path& dir);

// The model_type of a config.json file, which must name a family (errors name the file).
std::string config_json_model_type(const std::filesystem::path& config_json);

// config_name's family: a family's preset name, else the model_type of the config.json it is
// (or of the directory holding one).
std::string config_model_type(const std::string& name_or_path);

// The checkpoint in `dir` (Model::load of its family).
AnyModel load_any_model(const std::filesystem::path& dir);

}  // namespace precis
