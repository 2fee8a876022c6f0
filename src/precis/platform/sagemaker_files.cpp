#include "precis/platform/sagemaker_files.h"

#include <algorithm>
#include <cstdlib>

#include "precis/core/error.h"
#include "precis/core/json_input.h"

namespace precis::platform {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<SageMakerPaths> sagemaker_paths() {
  const char* base = std::getenv("SAGEMAKER_BASE_DIR");
  SageMakerPaths paths{fs::path(base && *base ? base : "/opt/ml")};
  std::error_code ec;
  if (!fs::is_directory(paths.config(), ec)) return std::nullopt;
  return paths;
}

namespace {

std::string required_string(const json& j, const char* field, const fs::path& file) {
  if (!j.contains(field) || !j[field].is_string() || j[field].get<std::string>().empty())
    throw Error(file.string() + ": expected \"" + field + "\" to be a non-empty string");
  return j[field].get<std::string>();
}

}  // namespace

ResourceConfig read_resource_config(const SageMakerPaths& paths) {
  const fs::path file = paths.config() / "resourceconfig.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return {"algo-1", {"algo-1"}, "eth0", ""};
  const json j = read_json_file(file);
  if (!j.is_object()) throw Error(file.string() + ": expected a JSON object");
  ResourceConfig rc;
  rc.current_host = required_string(j, "current_host", file);
  rc.network_interface_name =
      j.contains("network_interface_name") ? required_string(j, "network_interface_name", file)
                                           : "eth0";
  if (j.contains("current_instance_type"))
    rc.current_instance_type = required_string(j, "current_instance_type", file);
  if (!j.contains("hosts") || !j["hosts"].is_array() || j["hosts"].empty())
    throw Error(file.string() + ": expected \"hosts\" to be a non-empty list of host names");
  for (const json& h : j["hosts"]) {
    if (!h.is_string() || h.get<std::string>().empty())
      throw Error(file.string() + ": expected \"hosts\" to hold host names, found " + h.dump());
    rc.hosts.push_back(h.get<std::string>());
  }
  // SageMaker lists them sorted; the first starts mpirun on every host's view of the list,
  // so sort anyway rather than trust the order.
  std::sort(rc.hosts.begin(), rc.hosts.end());
  if (std::find(rc.hosts.begin(), rc.hosts.end(), rc.current_host) == rc.hosts.end())
    throw Error(file.string() + ": current_host \"" + rc.current_host +
                "\" is not one of \"hosts\"");
  return rc;
}

fs::path checkpoint_local_path(const SageMakerPaths& paths) {
  const fs::path file = paths.config() / "checkpointconfig.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return paths.base / "checkpoints";
  const json j = read_json_file(file);
  if (!j.is_object()) throw Error(file.string() + ": expected a JSON object");
  if (!j.contains("LocalPath")) return paths.base / "checkpoints";
  return required_string(j, "LocalPath", file);
}

void refuse_streamed_channels(const SageMakerPaths& paths) {
  const fs::path file = paths.config() / "inputdataconfig.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return;
  const json j = read_json_file(file);
  if (!j.is_object()) throw Error(file.string() + ": expected a JSON object of channels");
  for (const auto& [channel, config] : j.items()) {
    if (!config.is_object() || !config.contains("TrainingInputMode")) continue;
    const json& mode = config["TrainingInputMode"];
    if (mode.is_string() && mode.get<std::string>() != "File")
      throw Error(file.string() + ": channel \"" + channel + "\" is in " + mode.get<std::string>() +
                  " mode; precis reads whole files from /opt/ml/input/data/" + channel +
                  ": give the channel input_mode=\"File\"");
  }
}

}  // namespace precis::platform
