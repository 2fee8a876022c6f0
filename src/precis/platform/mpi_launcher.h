// A multi-host SageMaker job, launched the way AWS's training toolkit launches MPI jobs, so
// that the service sees what it expects: every host starts sshd; the first host
// (resourceconfig.json's hosts[0]) waits until every host's name resolves and its sshd
// answers, then runs mpirun over ssh with one rank per GPU (or per --ranks_per_host) on each
// host; the other hosts wait for the orted that mpirun starts through their sshd, and for its
// end.
//
// Beyond the toolkit, each host ends with the job's status: when mpirun ends, the first host
// tells every other host (`precis sagemaker-job-end STATUS`, through ssh, the cause on its
// standard input), so that a failed job fails on every host and a finished one exits 0 on
// every host; a host that hears nothing within kJobEndWait_s of its orted's end fails. SIGTERM
// (SageMaker's stop) on any host is passed to the ranks running there, which agree to stop,
// save a checkpoint and exit 0 (train/stop_policy.h).
#pragma once

#include <string>
#include <vector>

#include "precis/platform/efa.h"
#include "precis/platform/sagemaker_files.h"

namespace precis::platform {

struct MpiLaunch {
  SageMakerPaths paths;
  ResourceConfig resources;
  int ranks_per_host = 1;
  std::vector<std::string> train_arguments;  // the launcher's own `precis train` arguments
  Efa efa;  // the hosts' EFA (detect_efa), for NCCL's libfabric
};

// The mpirun command line for `launch` (without the ssh agent, which OpenMPI reads from
// OMPI_MCA_plm_rsh_agent). `precis` is this executable's path. NCCL's settings go to every
// rank: NCCL_SOCKET_IFNAME is the interface SageMaker names, libfabric's EFA settings where the
// hosts have EFA, and the NCCL_* and FI_* variables set here (NCCL_DEBUG, ...) as they are,
// which the user's FI_PROVIDER or FI_EFA_USE_DEVICE_RDMA override.
std::vector<std::string> mpirun_command(const MpiLaunch& launch, const std::string& precis);

// The host that runs mpirun: returns the exit status for the whole job.
int run_first_host(const MpiLaunch& launch);

// The first host, when the job cannot start (bad options): writes the failure file, tells the
// other hosts, and returns the exit status (1).
int end_job_before_launch(const MpiLaunch& launch, const std::string& cause);

// Any other host: returns the job's exit status as the first host reported it.
int run_other_host(const MpiLaunch& launch);

// `precis sagemaker-job-end`: on another host, records the job's status (and the cause of a
// failure, for that host's failure file) for run_other_host.
void record_job_end(const SageMakerPaths& paths, int status, const std::string& cause);

// How long a host waits for the first host's word once its own ranks have ended.
inline constexpr double kJobEndWait_s = 30;

}  // namespace precis::platform
