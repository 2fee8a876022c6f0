// The world of one process: every collective leaves the data as it is.
#pragma once

#include "precis/dist/communicator.h"

namespace precis::dist {

class SingleProcessCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  int hosts() const override { return 1; }
  void all_reduce(const Tensor&, ReduceOp, Stream) override {}
  void all_reduce(std::span<double>, ReduceOp) override {}
  void reduce_scatter(const Tensor&, std::span<const int64_t>, ReduceOp, Stream) override {}
  void all_gather(const Tensor&, std::span<const int64_t>, Stream) override {}
  std::vector<std::string> all_gather_bytes(const std::string& mine) override { return {mine}; }
  void broadcast(std::span<std::byte>, int) override {}
  void barrier() override {}
  Handle all_reduce_async(const Tensor&, ReduceOp, Stream) override { return 0; }
  void progress() override {}
  double wait(Handle) override { return 0.0; }
  [[noreturn]] void abort(int code) override;
};

}  // namespace precis::dist
