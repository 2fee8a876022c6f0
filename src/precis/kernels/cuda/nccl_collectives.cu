#include "precis/kernels/cuda/nccl_collectives.h"

#include <nccl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
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
    case DType::F64:
      return ncclFloat64;
    default:
      break;
  }
  throw Error("nccl: no NCCL type for " + dtype_name(dtype));
}

ncclRedOp_t nccl_op(dist::ReduceOp op) { return op == dist::ReduceOp::Sum ? ncclSum : ncclAvg; }

cudaStream_t native_stream(Stream s) { return static_cast<cudaStream_t>(s.handle); }

int64_t total(std::span<const int64_t> counts) {
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  return n;
}

bool equal(std::span<const int64_t> counts) {
  for (int64_t c : counts)
    if (c != counts[0]) return false;
  return !counts.empty();
}

class NcclCollectives final : public dist::DeviceCollectives {
 public:
  NcclCollectives(dist::Communicator& host, Device device, dist::CollectivesDeadline deadline)
      : device_(device),
        rank_(host.rank()),
        ranks_(host.world_size()),
        deadline_(std::move(deadline)) {
    ncclUniqueId id{};
    if (rank_ == 0) ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
    host.broadcast(std::as_writable_bytes(std::span<ncclUniqueId>(&id, 1)), 0);
    // The stream's creation makes `device` this thread's current device, which
    // ncclCommInitRank binds the communicator to.
    comm_stream_ = create_stream(device);
    ok(ncclCommInitRank(&comm_, ranks_, id, rank_),
       "ncclCommInitRank (rank " + std::to_string(rank_) + " of " + std::to_string(ranks_) +
           " on " + device.name() + ")");
    watchdog_ = std::thread([this] { watch(); });
  }

  ~NcclCollectives() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    watchdog_.join();
    if (!aborted_) ncclCommDestroy(comm_);
    for (const InFlight& f : in_flight_)
      if (f.recorded) free_events_.push_back(f.done);
    for (auto& [h, a] : pending_) free_events_.insert(free_events_.end(), {a.started, a.done});
    for (Event e : free_events_) destroy_event(e);
    destroy_stream(comm_stream_);
  }

  void all_reduce(void* data, int64_t count, DType dtype, dist::ReduceOp op,
                  Stream stream) override {
    const std::string what = "ncclAllReduce of " + std::to_string(count) + " elements";
    watched(what, stream, [&] {
      ok(ncclAllReduce(data, data, size_t(count), nccl_type(dtype), nccl_op(op), comm_,
                       native_stream(stream)),
         what);
    });
  }

  void reduce_scatter(void* data, std::span<const int64_t> counts, DType dtype, dist::ReduceOp op,
                      Stream stream) override {
    watched("reduce-scatter of " + std::to_string(total(counts)) + " elements", stream,
            [&] { reduce_scatter_now(static_cast<char*>(data), counts, dtype, op, stream); });
  }

  void all_gather(void* data, std::span<const int64_t> counts, DType dtype,
                  Stream stream) override {
    watched("all-gather of " + std::to_string(total(counts)) + " elements", stream,
            [&] { all_gather_now(static_cast<char*>(data), counts, dtype, stream); });
  }

  Handle all_reduce_async(void* data, int64_t count, DType dtype, dist::ReduceOp op,
                          Stream stream) override {
    const Async a{event(), event()};
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
    std::lock_guard<std::mutex> lock(mu_);
    free_events_.insert(free_events_.end(), {it->second.started, it->second.done});
    pending_.erase(it);
  }

  void abort() override {
    if (aborted_.exchange(true)) return;
    ncclCommAbort(comm_);
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Async {
    Event started, done;
  };
  // A collective queued and not yet seen complete: `recorded` once its call has returned and
  // the event after it is queued. Until then the call itself may be what waits (the
  // emulator's NCCL runs the collective inside the call).
  struct InFlight {
    int64_t id;
    Clock::time_point queued;
    std::string what;
    Event done;
    bool recorded = false;
  };

  // NCCL's reduce-scatter and all-gather take equal segments; uneven ones (the first
  // n % ranks one larger) go as one group of a reduce, or a broadcast, rooted at each segment's
  // rank, which moves the same bytes.
  void reduce_scatter_now(char* base, std::span<const int64_t> counts, DType dtype,
                          dist::ReduceOp op, Stream stream) {
    const size_t bytes = dtype_size(dtype);
    if (equal(counts)) {
      const size_t c = size_t(counts[0]);
      ok(ncclReduceScatter(base, base + size_t(rank_) * c * bytes, c, nccl_type(dtype), nccl_op(op),
                           comm_, native_stream(stream)),
         "ncclReduceScatter of " + std::to_string(c) + " elements a rank");
      return;
    }
    per_segment(base, counts, bytes, "reduce-scatter", [&](char* segment, size_t count, int r) {
      ok(ncclReduce(segment, segment, count, nccl_type(dtype), nccl_op(op), r, comm_,
                    native_stream(stream)),
         "ncclReduce of segment " + std::to_string(r));
    });
  }

  void all_gather_now(char* base, std::span<const int64_t> counts, DType dtype, Stream stream) {
    const size_t bytes = dtype_size(dtype);
    if (equal(counts)) {
      const size_t c = size_t(counts[0]);
      ok(ncclAllGather(base + size_t(rank_) * c * bytes, base, c, nccl_type(dtype), comm_,
                       native_stream(stream)),
         "ncclAllGather of " + std::to_string(c) + " elements a rank");
      return;
    }
    per_segment(base, counts, bytes, "all-gather", [&](char* segment, size_t count, int r) {
      ok(ncclBroadcast(segment, segment, count, nccl_type(dtype), r, comm_, native_stream(stream)),
         "ncclBroadcast of segment " + std::to_string(r));
    });
  }

  // One call a segment (its start, its count, its rank: the root) in one NCCL group.
  template <class Call>
  void per_segment(char* base, std::span<const int64_t> counts, size_t bytes, const char* what,
                   Call&& call) {
    ok(ncclGroupStart(), "ncclGroupStart");
    size_t offset = 0;
    for (int r = 0; r < ranks_; ++r) {
      call(base + offset * bytes, size_t(counts[r]), r);
      offset += size_t(counts[r]);
    }
    ok(ncclGroupEnd(), std::string("ncclGroupEnd (") + what + ")");
  }

  // Runs `call`, which queues a collective on `stream`, under the watchdog's eye.
  template <class Call>
  void watched(const std::string& what, Stream stream, Call&& call) {
    int64_t id;
    {
      std::lock_guard<std::mutex> lock(mu_);
      id = next_in_flight_++;
      in_flight_.push_back({id, Clock::now(), what, Event{}, false});
    }
    call();
    std::lock_guard<std::mutex> lock(mu_);
    const Event done = event_locked();
    record_event(done, stream);
    for (InFlight& f : in_flight_)
      if (f.id == id) f.done = done, f.recorded = true;
  }

  // The watchdog's thread: drops what has completed, oldest first (one communicator's
  // collectives complete in the order queued), and ends the job at the first that is late.
  void watch() {
    const auto timeout = std::chrono::duration<double>(deadline_.timeout_s);
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      wake_.wait_for(lock, std::chrono::milliseconds(50));
      while (!in_flight_.empty() && in_flight_.front().recorded &&
             event_done(in_flight_.front().done)) {
        free_events_.push_back(in_flight_.front().done);
        in_flight_.pop_front();
      }
      if (stop_ || in_flight_.empty() || Clock::now() - in_flight_.front().queued < timeout)
        continue;
      const std::string what = in_flight_.front().what;
      lock.unlock();
      // Unblocks what waits for the missing rank (NCCL's kernels; the emulator's call), then
      // ends the job.
      abort();
      if (deadline_.on_timeout) deadline_.on_timeout(what);
      return;
    }
  }

  Event event() {
    std::lock_guard<std::mutex> lock(mu_);
    return event_locked();
  }

  Event event_locked() {
    if (free_events_.empty()) return create_event(device_);
    const Event e = free_events_.back();
    free_events_.pop_back();
    return e;
  }

  Device device_;
  int rank_, ranks_;
  dist::CollectivesDeadline deadline_;
  ncclComm_t comm_ = nullptr;
  Stream comm_stream_;
  std::map<Handle, Async> pending_;  // the main thread's alone
  Handle next_handle_ = 1;
  std::atomic<bool> aborted_{false};
  // The watchdog's state, and the pool of events both threads take from.
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<InFlight> in_flight_;
  int64_t next_in_flight_ = 0;
  std::vector<Event> free_events_;
  bool stop_ = false;
  std::thread watchdog_;
};

}  // namespace

std::unique_ptr<dist::DeviceCollectives> open_nccl_collectives(dist::Communicator& host,
                                                               Device device,
                                                               dist::CollectivesDeadline deadline) {
  return std::make_unique<NcclCollectives>(host, device, std::move(deadline));
}

}  // namespace precis::cuda
