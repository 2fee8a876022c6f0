#include "precis/dist/launch_environment.h"

#include <cstdlib>
#include <optional>
#include <string>

#include "precis/core/error.h"
#include "precis/dist/mpi_communicator.h"
#include "precis/dist/single_process_communicator.h"

namespace precis::dist {

namespace {

// The first of `names` that is set, as an integer.
std::optional<int> env_int(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    try {
      return std::stoi(v);
    } catch (const std::exception&) {
      throw Error(std::string("environment variable ") + name + "=" + v + " is not an integer");
    }
  }
  return std::nullopt;
}

}  // namespace

LaunchEnvironment launch_environment() {
  LaunchEnvironment e;
  e.world_size = env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"}).value_or(1);
  e.rank = env_int({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}).value_or(0);
  e.local_rank = env_int({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}).value_or(0);
  return e;
}

std::unique_ptr<Communicator> make_communicator(double timeout_s) {
  if (!launch_environment().launched()) return std::make_unique<SingleProcessCommunicator>();
  return std::make_unique<MpiCommunicator>(timeout_s);
}

}  // namespace precis::dist
