// Who this process is in a job started by a launcher: mpirun (OpenMPI's OMPI_COMM_WORLD_*),
// Slurm's srun (SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID) or a PMI launcher (PMI_RANK /
// PMI_SIZE). A process started without one is a world of one.
#pragma once

#include <memory>
#include <string>

#include "precis/dist/communicator.h"

namespace precis::dist {

struct LaunchEnvironment {
  int rank = 0, world_size = 1, local_rank = 0;
  bool launched() const { return world_size > 1; }
};

LaunchEnvironment launch_environment();

// MPI when the launcher started more than one process, else a single-process world.
// timeout_s bounds every collective (a dead or stuck rank ends the job with a message);
// host_name is this host's name for Communicator::hosts ("": gethostname()).
std::unique_ptr<Communicator> make_communicator(double timeout_s, const std::string& host_name = "");

}  // namespace precis::dist
