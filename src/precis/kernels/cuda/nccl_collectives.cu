#include "precis/kernels/cuda/nccl_collectives.h"

#include <nccl.h>

#include <map>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cuda/streams.h"

namespace precis::cuda {

namespace {

void ok(ncclResult_t result, const std::string& what) {
  if (result != ncclSuccess)
    throw Error("nccl: " + what + ": " + ncclGetErrorString(result) +
                " (NCCL_DEBUG=WARN says more)");
}

ncclDataType_t nccl_type(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return ncclFloat32;
    case DType::BF16:
      return ncclBfloat16;
    case DType::F16:
      return ncclFloat16;
    case DType::I32:
      return ncclInt32;
    default:
      break;
  }
  throw Error("nccl: no NCCL type for " + dtype_name(dtype));
}

ncclRedOp_t nccl_op(dist::ReduceOp op) { return op == dist::ReduceOp::Sum ? ncclSum : ncclAvg; }

cudaStream_t native_stream(Stream s) { return static_cast<cudaStream_t>(s.handle); }

class NcclCollectives final : public dist::DeviceCollectives {
 public:
  NcclCollectives(dist::Communicator& host, Device device)
      : device_(device), rank_(host.rank()), ranks_(host.world_size()) {
    ncclUniqueId id{};
    if (rank_ == 0) ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
    host.broadcast(std::as_writable_bytes(std::span<ncclUniqueId>(&id, 1)), 0);
    // The stream's creation makes `device` this thread's current device, which
    // ncclCommInitRank binds the communicator to.
    comm_stream_ = create_stream(device);
    ok(ncclCommInitRank(&comm_, ranks_, id, rank_),
       "ncclCommInitRank (rank " + std::to_string(rank_) + " of " + std::to_string(ranks_) +
           " on " + device.name() + ")");
  }

  ~NcclCollectives() override {
    if (!aborted_) ncclCommDestroy(comm_);
    for (auto& [h, a] : pending_) release(a);
    for (Event e : free_events_) destroy_event(e);
    destroy_stream(comm_stream_);
  }

  void all_reduce(void* data, int64_t count, DType dtype, dist::ReduceOp op,
                  Stream stream) override {
    ok(ncclAllReduce(data, data, size_t(count), nccl_type(dtype), nccl_op(op), comm_,
                     native_stream(stream)),
       "ncclAllReduce of " + std::to_string(count) + " elements");
  }

  // NCCL's reduce-scatter and all-gather take equal segments; uneven ones (the first
  // n % ranks one larger) go as one group of a reduce, or a broadcast, rooted at each segment's
  // rank, which moves the same bytes.
  void reduce_scatter(void* data, std::span<const int64_t> counts, DType dtype, dist::ReduceOp op,
                      Stream stream) override {
    const size_t bytes = dtype_size(dtype);
    char* base = static_cast<char*>(data);
    if (equal(counts)) {
      const size_t c = size_t(counts[0]);
      ok(ncclReduceScatter(base, base + size_t(rank_) * c * bytes, c, nccl_type(dtype), nccl_op(op),
                           comm_, native_stream(stream)),
         "ncclReduceScatter of " + std::to_string(c) + " elements a rank");
      return;
    }
    ok(ncclGroupStart(), "ncclGroupStart");
    size_t offset = 0;
    for (int r = 0; r < ranks_; ++r) {
      char* segment = base + offset * bytes;
      ok(ncclReduce(segment, segment, size_t(counts[r]), nccl_type(dtype), nccl_op(op), r, comm_,
                    native_stream(stream)),
         "ncclReduce of segment " + std::to_string(r));
      offset += size_t(counts[r]);
    }
    ok(ncclGroupEnd(), "ncclGroupEnd (reduce-scatter)");
  }

  void all_gather(void* data, std::span<const int64_t> counts, DType dtype,
                  Stream stream) override {
    const size_t bytes = dtype_size(dtype);
    char* base = static_cast<char*>(data);
    if (equal(counts)) {
      const size_t c = size_t(counts[0]);
      ok(ncclAllGather(base + size_t(rank_) * c * bytes, base, c, nccl_type(dtype), comm_,
                       native_stream(stream)),
         "ncclAllGather of " + std::to_string(c) + " elements a rank");
      return;
    }
    ok(ncclGroupStart(), "ncclGroupStart");
    size_t offset = 0;
    for (int r = 0; r < ranks_; ++r) {
      char* segment = base + offset * bytes;
      ok(ncclBroadcast(segment, segment, size_t(counts[r]), nccl_type(dtype), r, comm_,
                       native_stream(stream)),
         "ncclBroadcast of segment " + std::to_string(r));
      offset += size_t(counts[r]);
    }
    ok(ncclGroupEnd(), "ncclGroupEnd (all-gather)");
  }

  Handle all_reduce_async(void* data, int64_t count, DType dtype, dist::ReduceOp op,
                          Stream stream) override {
    Async a{event(), event()};
    record_event(a.started, stream);
    stream_wait_event(comm_stream_, a.started);
    all_reduce(data, count, dtype, op, comm_stream_);
    record_event(a.done, comm_stream_);
    const Handle h = next_handle_++;
    pending_.emplace(h, a);
    return h;
  }

  void wait(Handle handle, Stream stream) override {
    auto it = pending_.find(handle);
    check(it != pending_.end(), "nccl: no all-reduce " + std::to_string(handle) + " is pending");
    stream_wait_event(stream, it->second.done);
    // An event may be recorded again once the waits on it are queued.
    release(it->second);
    pending_.erase(it);
  }

  void abort() override {
    if (aborted_) return;
    aborted_ = true;
    ncclCommAbort(comm_);
  }

 private:
  struct Async {
    Event started, done;
  };

  bool equal(std::span<const int64_t> counts) const {
    for (int64_t c : counts)
      if (c != counts[0]) return false;
    return !counts.empty();
  }

  Event event() {
    if (free_events_.empty()) return create_event(device_);
    Event e = free_events_.back();
    free_events_.pop_back();
    return e;
  }

  void release(const Async& a) {
    free_events_.push_back(a.started);
    free_events_.push_back(a.done);
  }

  Device device_;
  int rank_, ranks_;
  ncclComm_t comm_ = nullptr;
  Stream comm_stream_;
  std::map<Handle, Async> pending_;
  std::vector<Event> free_events_;
  Handle next_handle_ = 1;
  bool aborted_ = false;
};

}  // namespace

std::unique_ptr<dist::DeviceCollectives> open_nccl_collectives(dist::Communicator& host,
                                                               Device device) {
  return std::make_unique<NcclCollectives>(host, device);
}

}  // namespace precis::cuda
