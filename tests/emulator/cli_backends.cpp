// tools/precis/backends.cpp for precis_emulated, the CLI whose CUDA backend is the kernel
// emulator: `precis_emulated train --device cuda` runs a whole job through the CUDA twins'
// launchers and kernel bodies on one emulated device. Its memory is guarded
// (device_memory.h): any host read or write of device memory by the trainer, the evaluation,
// generation or checkpointing (a crash on a GPU) ends the process with SIGSEGV where it
// happens, so the CLI tests prove that data moves between host and device only by copies.
// Under mpirun its ranks' device collectives are NCCL's calls over MPI (nccl_emulated.cpp).
#include "backends.h"

#include "emulator/device_memory.h"
#include "emulator/install.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/cuda/nccl_collectives.h"

namespace precis::cli {

void register_backends() {
  cuda::set_backend_installer([]() -> int {
    cuda_emulation::install();
    cuda_emulation::guard_device_memory(true);
    return 1;
  });
  dist::set_device_collectives_opener(&cuda::open_nccl_collectives);
}

std::string backends_description() { return "the kernel emulator (precis_emulated: a test build)"; }

}  // namespace precis::cli
