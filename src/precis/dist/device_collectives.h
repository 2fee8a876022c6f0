// The collectives on one GPU's buffers that data parallelism needs, as the GPU communicator
// (NCCL) gives them: in place, ordered on a stream, the host never waiting. libprecis does not
// link NCCL: the CUDA backend registers how to open them (kernels/cuda/nccl_collectives.h),
// the GPU's own or, in the tests, the kernel emulator's NCCL over MPI.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "precis/core/device.h"
#include "precis/core/dtype.h"
#include "precis/dist/communicator.h"

namespace precis::dist {

class DeviceCollectives {
 public:
  virtual ~DeviceCollectives() = default;

  // As Communicator's, on `count` elements of `dtype` at `data` in device memory, queued on
  // `stream` (the call returns before they run).
  virtual void all_reduce(void* data, int64_t count, DType dtype, ReduceOp op, Stream stream) = 0;
  virtual void reduce_scatter(void* data, std::span<const int64_t> counts, DType dtype, ReduceOp op,
                              Stream stream) = 0;
  virtual void all_gather(void* data, std::span<const int64_t> counts, DType dtype,
                          Stream stream) = 0;

  // The all-reduce on the communication stream, after the work queued on `stream` so far;
  // wait() makes the work queued on `stream` after it wait for it, on the device.
  using Handle = int64_t;
  virtual Handle all_reduce_async(void* data, int64_t count, DType dtype, ReduceOp op,
                                  Stream stream) = 0;
  virtual void wait(Handle handle, Stream stream) = 0;

  // After an error on this rank: ends the communicator without waiting for the other ranks
  // (ncclCommAbort), so that nothing queued waits forever for a rank that is gone.
  virtual void abort() = 0;
};

// A collective on the device never returns an error when a rank dies or hangs: its kernels
// wait for the missing rank forever, and so would the host at its next read. A watchdog
// thread therefore watches every collective queued: one that has not completed `timeout_s`
// after it was queued (--ddp_timeout) aborts the communicator and calls `on_timeout` with a
// description of it ("ncclAllReduce of 262144 elements"), from the watchdog's thread; it must
// end the job.
struct CollectivesDeadline {
  double timeout_s = 1800;
  std::function<void(const std::string& what)> on_timeout;
};

// Opens the job's device collectives for `device`, one per rank, all ranks at once; `host`
// carries what the ranks must agree on first (NCCL's unique id).
using DeviceCollectivesOpener = std::unique_ptr<DeviceCollectives> (*)(
    Communicator& host, Device device, CollectivesDeadline deadline);
// The backend's opener (null: none, the default).
void set_device_collectives_opener(DeviceCollectivesOpener opener);
bool has_device_collectives();
// Throws Error saying why when no backend registered one.
std::unique_ptr<DeviceCollectives> open_device_collectives(Communicator& host, Device device,
                                                           CollectivesDeadline deadline);

}  // namespace precis::dist
