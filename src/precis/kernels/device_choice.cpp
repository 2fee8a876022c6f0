#include "precis/kernels/device_choice.h"

#include "precis/core/error.h"
#include "precis/dist/device_collectives.h"
#include "precis/kernels/cuda/kernels_cuda.h"

namespace precis {

Device choose_device(const std::string& option, int local_rank, int world_size) {
  check(option == "auto" || option == "cpu" || option == "cuda",
        "--device: expected auto, cpu or cuda, found \"" + option + "\"");
  if (option == "cpu") return Device::cpu();
  const int gpus = cuda::device_count();
  const bool collectives = world_size == 1 || dist::has_device_collectives();
  if (option == "auto" && (gpus == 0 || !collectives)) return Device::cpu();
  check(gpus > 0,
        "--device cuda: no CUDA GPU is available to this process (it needs a precis built with "
        "the CUDA toolkit, a driver and a visible GPU); --device auto or cpu runs on the CPU");
  check(collectives,
        "--device cuda: " + std::to_string(world_size) +
            " processes need a GPU communicator (NCCL), which this build of precis does not "
            "have (the CUDA toolkit it was built with had no NCCL); run one process, or --device "
            "cpu for data parallelism over MPI");
  return Device::cuda(local_rank % gpus);
}

}  // namespace precis
