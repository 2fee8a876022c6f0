// The CUDA backend the CLI offers (kernels/device_choice.h asks for it when a job may run on a
// GPU): the GPU's own, cuda/*.cu built by nvcc, in builds with the CUDA toolkit; none
// otherwise, where --device auto runs on the CPU and --device cuda says why it cannot. Ranks
// on GPUs talk through NCCL where the toolkit has it (dist/device_collectives.h).
// (tests/emulator/cli_backends.cpp is this file for the CLI over the kernel emulator.)
#include "backends.h"

#ifdef PRECIS_WITH_CUDA
#include "precis/kernels/cuda/twins.h"
#endif
#ifdef PRECIS_WITH_NCCL
#include "precis/kernels/cuda/nccl_collectives.h"
#endif

namespace precis::cli {

void register_backends() {
#ifdef PRECIS_WITH_CUDA
  cuda::set_backend_installer(&cuda::install_if_gpu_present);
#endif
#ifdef PRECIS_WITH_NCCL
  dist::set_device_collectives_opener(&cuda::open_nccl_collectives);
#endif
}

}  // namespace precis::cli

std::string precis::cli::backends_description() {
#ifdef PRECIS_WITH_CUDA
  return "CUDA (sm_80, sm_90; --device auto takes a GPU where one is visible)";
#else
  return "none (built without the CUDA toolkit)";
#endif
}
