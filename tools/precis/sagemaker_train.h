// `precis train` inside a SageMaker training job (src/precis/platform/sagemaker_files.h): the
// image's ENTRYPOINT is ["precis"] and the service runs `docker run IMAGE train`. Three roles:
//   - one host, one rank: the job runs here, in this process;
//   - the launcher of a multi-rank job: the first host runs mpirun over ssh, the others wait
//     (platform/mpi_launcher.h);
//   - a rank that mpirun started (OMPI_COMM_WORLD_SIZE set): reads its own host's files.
// Every role writes output/failure on an error and copies the job summary to output/data.
#pragma once

#include <string>
#include <vector>

#include "precis/platform/sagemaker_files.h"

namespace precis::cli {

// Runs the job in SageMaker's folders and returns the process's exit status.
int run_sagemaker_training(const platform::SageMakerPaths& paths,
                           const std::vector<std::string>& args);

}  // namespace precis::cli
