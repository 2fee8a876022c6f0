// The device collectives (dist/device_collectives.h) over NCCL: one communicator for the job,
// its unique id made by rank 0 and broadcast by the host communicator, on the device the rank
// trains on; the overlapped all-reduces on a communication stream of its own. Built by nvcc
// against the toolkit's NCCL for the GPU, and as host C++ against the kernel emulator's NCCL
// (tests/emulator/nccl.h: MPI collectives over the emulated device memory) in the tests.
#pragma once

#include <memory>

#include "precis/dist/device_collectives.h"

namespace precis::cuda {

std::unique_ptr<dist::DeviceCollectives> open_nccl_collectives(dist::Communicator& host,
                                                               Device device,
                                                               dist::CollectivesDeadline deadline);

}  // namespace precis::cuda
