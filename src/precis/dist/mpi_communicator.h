// The Communicator over MPI (OpenMPI on CPU). Every collective is started non-blocking and
// waited for under a deadline (--ddp_timeout): when a rank dies or hangs, the survivors do not
// wait forever but print which rank stopped answering and abort the job. Errors come back as
// return codes (MPI_ERRORS_RETURN), never as a silent hang in the error handler.
#pragma once

#include <map>
#include <mpi.h>

#include "precis/dist/communicator.h"

namespace precis::dist {

class MpiCommunicator final : public Communicator {
 public:
  // Initialises MPI (MPI_Init_thread, funneled: only the calling thread talks to MPI).
  // host_name: this host's name, which hosts() counts ("": gethostname()).
  explicit MpiCommunicator(double timeout_s, const std::string& host_name = "");
  ~MpiCommunicator() override;  // MPI_Finalize
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int world_size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  int hosts() const override { return hosts_; }
  // Host memory in fp32 (the device's buffers travel through the NCCL communicator).
  void all_reduce(const Tensor& data, ReduceOp op, Stream stream) override;
  void all_reduce(std::span<double> data, ReduceOp op) override;
  void reduce_scatter(const Tensor& data, std::span<const int64_t> counts, ReduceOp op,
                      Stream stream) override;
  void all_gather(const Tensor& data, std::span<const int64_t> counts, Stream stream) override;
  std::vector<std::string> all_gather_bytes(const std::string& mine) override;
  void broadcast(std::span<std::byte> data, int root) override;
  void barrier() override;
  Handle all_reduce_async(const Tensor& data, ReduceOp op, Stream stream) override;
  void progress() override;
  double wait(Handle handle) override;
  [[noreturn]] void abort(int code) override;
  std::vector<int> dead_ranks() const override;

 private:
  struct Pending {
    MPI_Request request;
    std::span<float> data;
    ReduceOp op;
  };
  // Waits for `request` until the deadline; on timeout names the unresponsive ranks and aborts.
  void complete(MPI_Request& request, const char* what);
  void checked(int code, const char* what);
  [[noreturn]] void timed_out(const char* what);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, hosts_ = 1;
  double timeout_s_;
  std::vector<std::string> host_of_rank_;
  std::vector<long> pid_of_rank_;
  std::map<Handle, Pending> pending_;
  Handle next_handle_ = 1;
};

}  // namespace precis::dist
