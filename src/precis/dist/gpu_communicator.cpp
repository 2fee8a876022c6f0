#include "precis/dist/gpu_communicator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

#include "precis/core/error.h"

namespace precis::dist {

namespace {

// The device's tensor, or the host's (which the host communicator takes).
bool on(const Tensor& data, Device device, const char* what) {
  if (data.device.is_cpu()) return false;
  check(data.device == device, std::string(what) + ": " + data.describe() +
                                   " is not on this rank's device, " + device.name());
  return true;
}

void check_counts(const Tensor& data, std::span<const int64_t> counts, int ranks,
                  const char* what) {
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  check(int(counts.size()) == ranks && total == data.numel(),
        std::string(what) + ": " + std::to_string(counts.size()) + " segments of " +
            std::to_string(total) + " elements for " + std::to_string(ranks) + " ranks and " +
            data.describe());
}

}  // namespace

GpuCommunicator::GpuCommunicator(Communicator& host, Device device, double timeout_s,
                                 ErrorReport on_error)
    : host_(host), device_(device), timeout_s_(timeout_s), on_error_(std::move(on_error)) {
  device_collectives_ = open_device_collectives(
      host, device, {timeout_s, [this](const std::string& what) { timed_out(what); }});
}

void GpuCommunicator::timed_out(const std::string& what) {
  std::string dead;
  for (int r : host_.dead_ranks()) dead += (dead.empty() ? "rank " : ", ") + std::to_string(r);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.0f", timeout_s_);
  const std::string cause =
      "a GPU collective (" + what + ") did not complete within --ddp_timeout " + seconds + " s: " +
      (dead.empty() ? "another rank stopped answering (on another host, or stuck)"
                    : dead + " has died");
  std::fprintf(stderr, "precis: rank %d: error: %s; ending the job\n", rank(), cause.c_str());
  std::fflush(stderr);
  if (on_error_) on_error_(rank(), cause);
  host_.abort(1);
  std::_Exit(1);  // not reached: the host communicator's abort ends the process
}

GpuCommunicator::~GpuCommunicator() {
  // Leaving on an error: the other ranks may never join what is queued, so abort rather than
  // wait for it in an orderly close.
  if (std::uncaught_exceptions() > 0) device_collectives_->abort();
}

void GpuCommunicator::all_reduce(const Tensor& data, ReduceOp op, Stream stream) {
  if (!on(data, device_, "all_reduce")) return host_.all_reduce(data, op, stream);
  device_collectives_->all_reduce(data.ptr, data.numel(), data.dtype, op, stream);
}

void GpuCommunicator::reduce_scatter(const Tensor& data, std::span<const int64_t> counts,
                                     ReduceOp op, Stream stream) {
  if (!on(data, device_, "reduce_scatter")) return host_.reduce_scatter(data, counts, op, stream);
  check_counts(data, counts, world_size(), "reduce_scatter");
  device_collectives_->reduce_scatter(data.ptr, counts, data.dtype, op, stream);
}

void GpuCommunicator::all_gather(const Tensor& data, std::span<const int64_t> counts,
                                 Stream stream) {
  if (!on(data, device_, "all_gather")) return host_.all_gather(data, counts, stream);
  check_counts(data, counts, world_size(), "all_gather");
  device_collectives_->all_gather(data.ptr, counts, data.dtype, stream);
}

Communicator::Handle GpuCommunicator::all_reduce_async(const Tensor& data, ReduceOp op,
                                                       Stream stream) {
  if (!on(data, device_, "all_reduce_async")) {
    // A host buffer: done now, through the host communicator, nothing to wait for.
    host_.all_reduce(data, op, stream);
    return 0;
  }
  const Handle h = next_handle_++;
  pending_.push_back(
      {h,
       {device_collectives_->all_reduce_async(data.ptr, data.numel(), data.dtype, op, stream),
        stream}});
  return h;
}

double GpuCommunicator::wait(Handle handle) {
  if (handle == 0) return 0.0;
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const auto& p) { return p.first == handle; });
  check(it != pending_.end(), "wait: no all-reduce " + std::to_string(handle) + " is pending");
  device_collectives_->wait(it->second.handle, it->second.stream);
  pending_.erase(it);
  return 0.0;
}

void GpuCommunicator::abort(int code) {
  device_collectives_->abort();
  host_.abort(code);
  std::_Exit(code);  // not reached: the host communicator's abort ends the process
}

}  // namespace precis::dist
