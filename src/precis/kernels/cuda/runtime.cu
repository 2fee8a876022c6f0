// cuda/runtime.h and launch.h's checks on the CUDA runtime.
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/streams.h"

#include <cuda_runtime.h>

#include <mutex>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void ok(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess)
    throw Error("cuda: " + what + ": " + cudaGetErrorName(status) + " (" +
                cudaGetErrorString(status) + ")");
}

void set_device(int device) {
  thread_local int current = -1;
  if (current == device) return;
  ok(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
  current = device;
}

}  // namespace

int install_if_gpu_present() {
  int count = 0;
  // No driver, or no device: a CPU-only run, not an error.
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the sticky error of the failed query
    return 0;
  }
  install(&twins());
  return count;
}

void use_device(Stream s) { set_device(s.device.index); }

void check_launch(const char* kernel) { ok(cudaGetLastError(), std::string("launch of ") + kernel); }

void* device_malloc(int device, size_t bytes) {
  set_device(device);
  void* p = nullptr;
  ok(cudaMalloc(&p, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes on cuda:" +
                                std::to_string(device));
  return p;
}

void device_free(int device, void* p) {
  set_device(device);
  cudaFree(p);  // in a destructor: nothing to do about a failure
}

void copy_async(void* dst, const void* src, size_t bytes, Stream s) {
  use_device(s);
  ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, native(s)),
     "cudaMemcpyAsync of " + std::to_string(bytes) + " bytes");
}

void memset_async(void* p, int value, size_t bytes, Stream s) {
  use_device(s);
  ok(cudaMemsetAsync(p, value, bytes, native(s)), "cudaMemsetAsync of " + std::to_string(bytes) + " bytes");
}

void synchronize(Stream s) {
  use_device(s);
  ok(cudaStreamSynchronize(native(s)), "cudaStreamSynchronize");
}

void* scratch(Stream s, size_t bytes) {
  struct Buffer {
    void* data = nullptr;
    size_t bytes = 0;
  };
  static std::mutex mu;
  static std::vector<Buffer> per_device;
  std::lock_guard<std::mutex> lock(mu);
  const size_t d = size_t(s.device.index);
  if (per_device.size() <= d) per_device.resize(d + 1);
  Buffer& b = per_device[d];
  if (b.bytes < bytes) {
    // Grown only on first need; the old buffer may still be read by queued work.
    synchronize(s);
    if (b.data) device_free(int(d), b.data);
    b.data = device_malloc(int(d), bytes);
    b.bytes = bytes;
  }
  return b.data;
}

Stream create_stream(Device device) {
  set_device(device.index);
  cudaStream_t s = nullptr;
  ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return Stream{device, s};
}

void destroy_stream(Stream s) {
  set_device(s.device.index);
  cudaStreamDestroy(native(s));  // at the end of its user: nothing to do about a failure
}

Event create_event(Device device) {
  set_device(device.index);
  cudaEvent_t e = nullptr;
  ok(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  return Event{device, e};
}

void destroy_event(Event e) {
  set_device(e.device.index);
  cudaEventDestroy(static_cast<cudaEvent_t>(e.handle));
}

void record_event(Event e, Stream s) {
  use_device(s);
  ok(cudaEventRecord(static_cast<cudaEvent_t>(e.handle), native(s)), "cudaEventRecord");
}

void stream_wait_event(Stream s, Event e) {
  use_device(s);
  ok(cudaStreamWaitEvent(native(s), static_cast<cudaEvent_t>(e.handle), 0), "cudaStreamWaitEvent");
}

bool event_done(Event e) {
  set_device(e.device.index);
  const cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(e.handle));
  if (status == cudaErrorNotReady) return false;
  ok(status, "cudaEventQuery");
  return true;
}

// A GPU runs the launch; what it costs is the cost model's business (launch_cost.h).
void declare_cost(const LaunchCost&) {}

}  // namespace precis::cuda
