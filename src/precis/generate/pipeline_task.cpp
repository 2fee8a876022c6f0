#include "precis/generate/pipeline_task.h"

#include "precis/core/error.h"
#include "precis/core/json_input.h"

namespace precis::generate {

namespace {

// config.prefix as PretrainedConfig holds it: a string, or null for none.
// `name` is the field's in messages.
std::string prefix_of(const nlohmann::json& j, const std::string& name) {
  if (!j.contains("prefix") || j["prefix"].is_null()) return "";
  check(j["prefix"].is_string(), name + " must be a string or null, found " + j["prefix"].dump());
  return j["prefix"].get<std::string>();
}

}  // namespace

PipelineTaskSettings pipeline_task_settings(const nlohmann::json& config_json,
                                            const std::string& task, const std::string& where) {
  check(config_json.is_object(), where + ": must be a JSON object");
  PipelineTaskSettings settings;
  settings.prefix = prefix_of(config_json, where + ": prefix");
  if (!config_json.contains("task_specific_params") ||
      config_json["task_specific_params"].is_null())
    return settings;
  const nlohmann::json& all = config_json["task_specific_params"];
  check(all.is_object(), where + ": task_specific_params must be an object, found " + all.dump());
  if (!all.contains(task) || all[task].is_null()) return settings;
  const std::string field = where + ": task_specific_params." + task;
  check(all[task].is_object(), field + " must be an object, found " + all[task].dump());
  settings.generation = all[task];
  // PretrainedConfig.update: the task's "prefix" replaces the config's.
  if (all[task].contains("prefix")) settings.prefix = prefix_of(all[task], field + ".prefix");
  return settings;
}

PipelineTaskSettings pipeline_task_settings(const std::filesystem::path& dir,
                                            const std::string& task) {
  const std::filesystem::path path = dir / "config.json";
  return pipeline_task_settings(read_json_file(path), task, path.string());
}

}  // namespace precis::generate
