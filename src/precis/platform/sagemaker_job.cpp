#include "precis/platform/sagemaker_job.h"

#include <algorithm>

#include "precis/core/error.h"

namespace precis::platform {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path channel_data_file(const fs::path& channel) {
  std::error_code ec;
  if (fs::is_regular_file(channel, ec)) return channel;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(channel, ec))
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.')
      files.push_back(entry.path());
  if (ec) throw Error(channel.string() + ": cannot list the channel: " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.size() == 1) return files.front();
  std::string found;
  for (const fs::path& f : files) found += (found.empty() ? "" : ", ") + f.filename().string();
  throw Error(channel.string() + ": expected one data file in the channel, found " +
              (files.empty() ? std::string("none") : std::to_string(files.size()) + " (" + found + ")") +
              "; name the file with the train_file / validation_file / test_file hyperparameter");
}

namespace {

// The value of hyperparameter `name`, if it is a string.
std::string* string_option(SageMakerHyperparameters& h, const std::string& name) {
  for (auto& [key, value] : h.options)
    if (key == name && value.is_string()) return value.get_ptr<std::string*>();
  return nullptr;
}

void erase_option(SageMakerHyperparameters& h, const std::string& name) {
  std::erase_if(h.options, [&](const auto& kv) { return kv.first == name; });
}

}  // namespace

SageMakerJob read_sagemaker_job(const SageMakerPaths& paths) {
  refuse_streamed_channels(paths);
  SageMakerJob job;
  job.settings.source = (paths.config() / "hyperparameters.json").string();
  job.settings.defaults_source = "SageMaker (" + paths.base.string() + ")";
  job.hyperparameters = read_hyperparameters(paths.config() / "hyperparameters.json");
  SageMakerHyperparameters& h = job.hyperparameters;
  std::error_code ec;

  // Paths the estimator wrote under /opt/ml follow the tree when SAGEMAKER_BASE_DIR moves it
  // (the tutorial sets output_dir "/opt/ml/model").
  if (paths.base != "/opt/ml")
    for (auto& [key, value] : h.options)
      if (value.is_string()) {
        const std::string& v = value.get_ref<const std::string&>();
        if (v == "/opt/ml" || v.rfind("/opt/ml/", 0) == 0)
          value = (paths.base.string() + v.substr(7));
      }

  // A `config` hyperparameter may name a file inside a channel, relative to input/data.
  if (std::string* config = string_option(h, "config");
      config && fs::path(*config).is_relative() && !fs::exists(*config, ec))
    *config = (paths.base / "input" / "data" / *config).string();

  // The tutorial's dict names the Hub's model and dataset; in a container without network
  // the model and data channels stand in for them.
  const bool model_channel = fs::exists(paths.channel("model"), ec);
  if (std::string* model = string_option(h, "model_name_or_path");
      model && model_channel && !fs::is_directory(*model, ec)) {
    job.notes.push_back("the model channel stands in for model_name_or_path \"" + *model + "\"");
    *model = paths.channel("model").string();
  }
  if (fs::exists(paths.channel("train"), ec) && string_option(h, "dataset_name")) {
    job.notes.push_back("the train channel stands in for dataset_name \"" +
                        *string_option(h, "dataset_name") + "\"");
    erase_option(h, "dataset_name");
    erase_option(h, "dataset_config_name");
  }
  job.settings.hyperparameters = h.options;

  auto& d = job.settings.defaults;
  d.emplace_back("output_dir", paths.model().string());
  d.emplace_back("checkpoint_dir", checkpoint_local_path(paths).string());
  d.emplace_back("logging_dir", (paths.output_data() / "tensorboard").string());
  d.emplace_back("save_on_interrupt", true);
  for (const char* name : {"train", "validation", "test"})
    if (fs::exists(paths.channel(name), ec))
      d.emplace_back(std::string(name) + "_file", channel_data_file(paths.channel(name)).string());
  if (model_channel) d.emplace_back("model_name_or_path", paths.channel("model").string());
  return job;
}

int ranks_per_host(int64_t ranks_per_host_option, const SageMakerHyperparameters& hyperparameters,
                   int gpus) {
  if (ranks_per_host_option > 0) return int(ranks_per_host_option);
  if (hyperparameters.processes_per_host) return int(*hyperparameters.processes_per_host);
  if (hyperparameters.data_parallel) return std::max(1, gpus);
  return 1;
}

}  // namespace precis::platform
