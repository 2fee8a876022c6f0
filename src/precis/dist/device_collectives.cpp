#include "precis/dist/device_collectives.h"

#include <utility>

#include "precis/core/error.h"

namespace precis::dist {

namespace {
DeviceCollectivesOpener registered = nullptr;
}  // namespace

void set_device_collectives_opener(DeviceCollectivesOpener opener) { registered = opener; }

bool has_device_collectives() { return registered != nullptr; }

std::unique_ptr<DeviceCollectives> open_device_collectives(Communicator& host, Device device,
                                                           CollectivesDeadline deadline) {
  check(registered != nullptr,
        "several processes on " + device.name() +
            " need a GPU communicator (NCCL), which this build of precis does not have (it "
            "needs the CUDA toolkit's NCCL at build time); --device cpu trains over MPI");
  return registered(host, device, std::move(deadline));
}

}  // namespace precis::dist
