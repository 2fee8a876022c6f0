// The collectives data-parallel training needs, behind one small interface (Marian's
// communicator idea): a single-process implementation (every collective is the identity),
// MPI on CPU, and later NCCL on GPU. The model's buffers (gradients, parameters, optimizer
// state) are flat tensors: a pointer, a count, a dtype and a device
// (model/common/flat_parameters.h), with the stream to order the collective on (unused on the CPU;
// NCCL's communication stream). Host values (loss sums, counters, flags) go as spans of doubles.
// Every collective works in place. All ranks must call the same collectives in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "precis/core/device.h"
#include "precis/core/tensor.h"

namespace precis::dist {

enum class ReduceOp { Sum, Average };

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;        // 0 .. world_size-1
  virtual int world_size() const = 0;
  virtual int local_rank() const = 0;  // rank among the processes of this host (picks the GPU)
  virtual int local_size() const = 0;  // processes on this host
  virtual int hosts() const = 0;       // distinct hosts in the job (for instance-seconds)
  bool is_main() const { return rank() == 0; }

  // data = op over ranks of data (all of its elements, whatever its shape).
  virtual void all_reduce(const Tensor& data, ReduceOp op, Stream stream) = 0;
  // Host values.
  virtual void all_reduce(std::span<double> data, ReduceOp op) = 0;
  // data is world_size() consecutive segments of counts[r] elements; afterwards rank r's
  // segment holds op over ranks of that segment (the other segments are left undefined).
  virtual void reduce_scatter(const Tensor& data, std::span<const int64_t> counts, ReduceOp op,
                              Stream stream) = 0;
  // Same segments: afterwards every rank holds every rank's segment.
  virtual void all_gather(const Tensor& data, std::span<const int64_t> counts, Stream stream) = 0;
  // Every rank's bytes, in rank order (variable sizes: strings, token rows, host names).
  virtual std::vector<std::string> all_gather_bytes(const std::string& mine) = 0;
  // data = root's data.
  virtual void broadcast(std::span<std::byte> data, int root) = 0;
  virtual void barrier() = 0;

  // Overlap: start an all-reduce and return at once; wait() completes it. Calling
  // progress() now and then (between layers of the backward) lets MPI advance it.
  using Handle = int64_t;
  virtual Handle all_reduce_async(const Tensor& data, ReduceOp op, Stream stream) = 0;
  virtual void progress() = 0;
  // Returns the seconds spent blocked in this call (the part of the collective not hidden).
  virtual double wait(Handle handle) = 0;

  // Ends every rank of the job at once (after an error on this rank), exit status `code`.
  [[noreturn]] virtual void abort(int code) = 0;
  // The ranks on this host whose process is gone (what a deadline's message names); empty
  // where none is, or where it cannot tell (ranks on other hosts).
  virtual std::vector<int> dead_ranks() const { return {}; }

  template <class T>
  void broadcast_value(T& value, int root) {
    broadcast(std::as_writable_bytes(std::span<T>(&value, 1)), root);
  }
};

// Segment sizes for splitting n elements over `ranks` as evenly as possible (the first
// n % ranks segments one larger).
std::vector<int64_t> even_segments(int64_t n, int ranks);

}  // namespace precis::dist
