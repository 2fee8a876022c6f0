// The Communicator of a job whose ranks train on GPUs: the buffers on the GPU (gradients,
// master weights, optimizer state) go through the device collectives (NCCL), in the stream's
// order, with the host never waiting for them; host values (loss sums, counters, flags, byte
// strings) and the job's membership, deadlines and abort stay with the host communicator
// (MPI), which also carries NCCL's unique id when the job starts.
//
// The overlap is NCCL's: all_reduce_async queues the bucket's all-reduce on the communication
// stream behind an event of the compute stream, and wait() makes the compute stream wait for
// it on the device, so the optimizer's first kernel waits for the last bucket and the host
// goes on queueing.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "precis/dist/device_collectives.h"

namespace precis::dist {

class GpuCommunicator final : public Communicator {
 public:
  // What a rank reports when it ends the job: the rank and the cause (SageMaker's failure file).
  using ErrorReport = std::function<void(int rank, const std::string& cause)>;
  // Opens the device collectives for `device` on every rank of `host` (all ranks at once). A
  // device collective that has not completed within timeout_s (--ddp_timeout) ends the job
  // from the watchdog's thread: the message names the ranks on this host that have died, it
  // goes to stderr and to on_error, and the host communicator aborts every rank.
  GpuCommunicator(Communicator& host, Device device, double timeout_s, ErrorReport on_error = {});
  ~GpuCommunicator() override;

  int rank() const override { return host_.rank(); }
  int world_size() const override { return host_.world_size(); }
  int local_rank() const override { return host_.local_rank(); }
  int local_size() const override { return host_.local_size(); }
  int hosts() const override { return host_.hosts(); }
  // Device tensors through the device collectives, host tensors through the host's.
  void all_reduce(const Tensor& data, ReduceOp op, Stream stream) override;
  void all_reduce(std::span<double> data, ReduceOp op) override { host_.all_reduce(data, op); }
  void reduce_scatter(const Tensor& data, std::span<const int64_t> counts, ReduceOp op,
                      Stream stream) override;
  void all_gather(const Tensor& data, std::span<const int64_t> counts, Stream stream) override;
  std::vector<std::string> all_gather_bytes(const std::string& mine) override {
    return host_.all_gather_bytes(mine);
  }
  void broadcast(std::span<std::byte> data, int root) override { host_.broadcast(data, root); }
  void barrier() override { host_.barrier(); }
  Handle all_reduce_async(const Tensor& data, ReduceOp op, Stream stream) override;
  void progress() override {}
  // Queues the wait on the stream the all-reduce was started from; the host does not block,
  // so the exposed time is the device's, not seen here (0).
  double wait(Handle handle) override;
  // Aborts the device collectives first (nothing left waiting on a GPU), then the job.
  [[noreturn]] void abort(int code) override;

 private:
  // The watchdog's end of the job (its thread): the message, the report, the host's abort.
  [[noreturn]] void timed_out(const std::string& what);

  Communicator& host_;
  Device device_;
  double timeout_s_;
  ErrorReport on_error_;
  std::unique_ptr<DeviceCollectives> device_collectives_;
  struct Pending {
    DeviceCollectives::Handle handle;
    Stream stream;
  };
  std::vector<std::pair<Handle, Pending>> pending_;
  Handle next_handle_ = 1;
};

}  // namespace precis::dist
