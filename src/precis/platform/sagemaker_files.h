// SageMaker's file contract for a bring-your-own-container training job, read from the files
// the service writes into the container, never from the SM_* variables (those exist only
// when AWS's Python toolkit is in the image):
//   <base>/input/config/hyperparameters.json   the estimator's hyperparameters, all strings
//   <base>/input/config/resourceconfig.json    current_host, hosts, network_interface_name
//   <base>/input/config/inputdataconfig.json   each channel's TrainingInputMode (File, Pipe)
//   <base>/input/config/checkpointconfig.json  LocalPath of the synced checkpoint folder
//   <base>/input/data/<channel>/               the channels' files (File mode)
//   <base>/model/                              tarred into model.tar.gz at the end
//   <base>/checkpoints/                        synced with S3, restored on a restart
//   <base>/output/data/                        uploaded as output.tar.gz
//   <base>/output/failure                      shown as the job's FailureReason
// <base> is /opt/ml, or SAGEMAKER_BASE_DIR where set (AWS's toolkit allows it; tests fake
// the tree there).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace precis::platform {

struct SageMakerPaths {
  std::filesystem::path base;
  std::filesystem::path config() const { return base / "input" / "config"; }
  std::filesystem::path channel(const std::string& name) const {
    return base / "input" / "data" / name;
  }
  std::filesystem::path model() const { return base / "model"; }
  std::filesystem::path output_data() const { return base / "output" / "data"; }
  std::filesystem::path failure() const { return base / "output" / "failure"; }
};

// The paths when this container is a SageMaker training job (<base>/input/config exists).
std::optional<SageMakerPaths> sagemaker_paths();

struct ResourceConfig {
  std::string current_host;          // "algo-1": the name the other hosts know this one by
  std::vector<std::string> hosts;    // sorted, as SageMaker gives them; hosts[0] starts mpirun
  std::string network_interface_name;  // "eth0": the interface MPI and NCCL must use
  std::string current_instance_type;   // "ml.p4d.24xlarge" ("" when not given)
  bool is_first_host() const { return current_host == hosts.front(); }
};

// resourceconfig.json; a single host "algo-1" on "eth0" when the file is absent (a local run
// of the image). Throws precis::Error naming the file and field when it is malformed.
ResourceConfig read_resource_config(const SageMakerPaths& paths);

// checkpointconfig.json's LocalPath, else <base>/checkpoints.
std::filesystem::path checkpoint_local_path(const SageMakerPaths& paths);

// Throws precis::Error when inputdataconfig.json puts a channel in Pipe (or FastFile) mode:
// precis reads its data files whole, from a directory.
void refuse_streamed_channels(const SageMakerPaths& paths);

}  // namespace precis::platform
