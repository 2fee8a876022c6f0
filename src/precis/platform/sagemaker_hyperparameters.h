// hyperparameters.json: a flat object of strings. Estimators encode each value one of two
// ways: the framework estimators json.dumps it ("5e-05", "true", "\"facebook/bart-large-cnn\"",
// "[\"tensorboard\"]"), the generic Estimator str()s it ("5e-05", "True",
// "facebook/bart-large-cnn", "['tensorboard']"). Both decode to what the training options'
// coercion accepts (it already takes "True", "5e-05" and "None" for typed options).
// The sagemaker_* keys are the service's and the SDK's own; two of them ask for data
// parallelism over every GPU of every host, and one says how many processes per host.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace precis::platform {

struct SageMakerHyperparameters {
  // Training options in file order, sagemaker_* keys removed.
  std::vector<std::pair<std::string, nlohmann::json>> options;
  // sagemaker_distributed_dataparallel_enabled or sagemaker_mpi_enabled is true.
  bool data_parallel = false;
  // sagemaker_mpi_num_of_processes_per_host, when given.
  std::optional<int64_t> processes_per_host;
};

// One value as the estimator wrote it, decoded: a JSON-encoded string or list is unwrapped;
// anything else stays the string it is, for the option's own coercion.
nlohmann::json decode_hyperparameter(const std::string& text);

// Reads the file (absent: no hyperparameters). Throws precis::Error naming the file and key
// when it is not a flat object or a sagemaker_* switch is not a boolean.
SageMakerHyperparameters read_hyperparameters(const std::filesystem::path& file);

}  // namespace precis::platform
