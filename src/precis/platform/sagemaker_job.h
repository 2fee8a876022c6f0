// A SageMaker training job as `precis train` options: the hyperparameters over the --config
// file, and what the service's folders imply for the options nobody set (train.h's
// PlatformSettings): the model folder SageMaker tars as output_dir, the synced checkpoint
// folder, TensorBoard events into output/data, the train / validation / test channels as the
// data files, the model channel as model_name_or_path, and a checkpoint on SIGTERM (the
// service's stop, and a spot instance's reclaim).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "precis/platform/sagemaker_files.h"
#include "precis/platform/sagemaker_hyperparameters.h"
#include "precis/train/training_arguments.h"

namespace precis::platform {

struct SageMakerJob {
  train::PlatformSettings settings;
  SageMakerHyperparameters hyperparameters;
  // What was substituted, for rank 0 to say once ("the model channel replaces ...").
  std::vector<std::string> notes;
};

// Reads the job's files. Throws precis::Error naming the file (or channel) at fault.
SageMakerJob read_sagemaker_job(const SageMakerPaths& paths);

// A channel's data file: the channel itself when it is a file, else the one file in its folder
// (hidden files aside). Throws precis::Error when the folder holds none or several.
std::filesystem::path channel_data_file(const std::filesystem::path& channel);

// Ranks per host when precis starts mpirun itself: `ranks_per_host_option` (--ranks_per_host)
// when positive, else sagemaker_mpi_num_of_processes_per_host, else one per GPU (`gpus`; one
// on a host without GPUs) when the estimator asked for data parallelism, else one.
int ranks_per_host(int64_t ranks_per_host_option, const SageMakerHyperparameters& hyperparameters,
                   int gpus);

}  // namespace precis::platform
