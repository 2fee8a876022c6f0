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

// torchrun (and torch.distributed.launch, Accelerate, DeepSpeed's launcher) starts processes
// with RANK / WORLD_SIZE / LOCAL_RANK and a MASTER_ADDR:MASTER_PORT rendezvous for
// torch.distributed. precis's ranks talk over MPI, which such a launcher does not start:
// taking its variables would make N processes that cannot reach each other, so they are
// refused with what to use instead (docs/kubernetes.md, "Other launchers").
void refuse_torchrun_world() {
  const char* world = std::getenv("WORLD_SIZE");
  if (!world || !*world || std::string(world) == "1") return;
  throw Error(std::string("WORLD_SIZE=") + world +
              " (torchrun's variables): precis's ranks communicate over MPI; start them with "
              "mpirun -np N precis train ... or srun --mpi=pmix precis train ... instead");
}

LaunchEnvironment launch_environment() {
  LaunchEnvironment e;
  e.world_size = env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"}).value_or(1);
  e.rank = env_int({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}).value_or(0);
  e.local_rank = env_int({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}).value_or(0);
  if (!e.launched()) refuse_torchrun_world();
  return e;
}

std::unique_ptr<Communicator> make_communicator(double timeout_s, const std::string& host_name) {
  if (!launch_environment().launched()) return std::make_unique<SingleProcessCommunicator>();
  return std::make_unique<MpiCommunicator>(timeout_s, host_name);
}

}  // namespace precis::dist
