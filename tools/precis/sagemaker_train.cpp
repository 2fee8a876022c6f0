#include "sagemaker_train.h"

#include <cstdio>
#include <filesystem>

#include "precis/core/error.h"
#include "precis/dist/launch_environment.h"
#include "precis/platform/failure_file.h"
#include "precis/platform/mpi_launcher.h"
#include "precis/platform/sagemaker_job.h"
#include "precis/train/trainer.h"

namespace precis::cli {

namespace fs = std::filesystem;

namespace {

int gpus_here() {
  int n = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
        name.find_first_not_of("0123456789", 6) == std::string::npos)
      ++n;
  }
  return n;
}

// Rank 0's job summary where SageMaker uploads it (output/data; TensorBoard's events are
// written there directly through logging_dir).
void publish_summary(const platform::SageMakerPaths& paths, const train::TrainingArguments& args) {
  const fs::path summary = fs::path(args.output_dir) / "job_summary.json";
  std::error_code ec;
  if (!fs::exists(summary, ec)) return;
  fs::create_directories(paths.output_data(), ec);
  fs::copy_file(summary, paths.output_data() / "job_summary.json",
                fs::copy_options::overwrite_existing, ec);
  if (ec)
    std::fprintf(stderr, "precis: warning: cannot copy %s to %s: %s\n", summary.c_str(),
                 paths.output_data().c_str(), ec.message().c_str());
}

}  // namespace

int run_sagemaker_training(const platform::SageMakerPaths& paths,
                           const std::vector<std::string>& argv) {
  const dist::LaunchEnvironment launched = dist::launch_environment();
  platform::ResourceConfig resources;
  try {
    resources = platform::read_resource_config(paths);
  } catch (const Error& e) {
    platform::write_failure_once(paths.failure(), e.what());
    throw;
  }
  const std::string& host = resources.current_host;
  auto fail = [&](int rank, const std::string& cause) {
    platform::write_failure_once(paths.failure(), platform::failure_reason(host, rank, cause));
  };

  // A host other than the first only serves mpirun's ssh and waits; it reads no options.
  platform::MpiLaunch launch{paths, resources, 1, argv, {}};
  if (!launched.launched() && !resources.is_first_host())
    return platform::run_other_host(launch);

  train::TrainingArguments args;
  platform::SageMakerJob job;
  try {
    job = platform::read_sagemaker_job(paths);
    args = train::parse_training_arguments(argv, job.settings);
    args.host_name = host;  // the name the other hosts know, never gethostname()
  } catch (const Error& e) {
    if (!launched.launched() && resources.hosts.size() > 1)
      return platform::end_job_before_launch(launch, e.what());
    fail(launched.rank, e.what());
    if (launched.launched()) std::fprintf(stderr, "precis: rank %d: error: %s\n", launched.rank, e.what());
    if (launched.launched()) return 1;
    throw;
  }
  if (launched.rank == 0)
    for (const std::string& note : job.notes) std::fprintf(stderr, "precis: SageMaker: %s\n", note.c_str());

  if (!launched.launched()) {
    launch.ranks_per_host =
        platform::ranks_per_host(args.ranks_per_host, job.hyperparameters, gpus_here());
    launch.efa = platform::detect_efa(resources.current_instance_type);
    if (resources.hosts.size() > 1 || launch.ranks_per_host > 1)
      return platform::run_first_host(launch);
  }
  try {
    train::run_training_job(args, fail);
  } catch (const Error& e) {
    fail(launched.rank, e.what());
    throw;
  }
  if (launched.rank == 0) publish_summary(paths, args);
  return 0;
}

}  // namespace precis::cli
