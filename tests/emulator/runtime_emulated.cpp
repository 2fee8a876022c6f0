// cuda/runtime.h in the kernel emulator: "device" memory is host memory (aligned as
// cudaMalloc aligns; guarded from the host's own reads and writes when device_memory.h says
// so), copies and fills happen at once (the emulator runs every launch to the end before
// returning, so the stream's order holds), and synchronize has nothing to wait for.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/streams.h"

#include "device_memory.h"
#include "emulator.h"

namespace precis::cuda {

void* device_malloc(int, size_t bytes) { return cuda_emulation::device_allocate(bytes); }

void device_free(int, void* p) { cuda_emulation::device_release(p); }

void copy_async(void* dst, const void* src, size_t bytes, Stream) {
  cuda_emulation::DeviceMemoryAccess access;
  if (bytes) std::memmove(dst, src, bytes);
}

void memset_async(void* p, int value, size_t bytes, Stream) {
  cuda_emulation::DeviceMemoryAccess access;
  if (bytes) std::memset(p, value, bytes);
}

void synchronize(Stream) {}

void* scratch(Stream s, size_t bytes) {
  struct Buffer {
    void* data = nullptr;
    size_t bytes = 0;
  };
  static std::mutex mu;
  // Kept to the end of the process (never destroyed: static arenas may still free their
  // blocks after static destructors ran), and reachable from here for LeakSanitizer.
  static auto* per_device = new std::vector<Buffer>;
  std::lock_guard<std::mutex> lock(mu);
  const size_t d = size_t(s.device.index);
  if (per_device->size() <= d) per_device->resize(d + 1);
  Buffer& b = (*per_device)[d];
  if (b.bytes < bytes) {
    device_free(int(d), b.data);
    b.data = device_malloc(int(d), bytes);
    b.bytes = bytes;
  }
  return b.data;
}

// Every launch, copy and collective has finished when its call returns: a stream of its own is
// a name, an event is complete when recorded, and a wait has nothing to wait for.
Stream create_stream(Device device) {
  static char tag;
  return Stream{device, &tag};
}
void destroy_stream(Stream) {}
Event create_event(Device device) { return Event{device, nullptr}; }
void destroy_event(Event) {}
void record_event(Event, Stream) {}
void stream_wait_event(Stream, Event) {}
bool event_done(Event) { return true; }

// Kept for the emulator's check of the launch that follows (emulator.h, MeasuredLaunch).
void declare_cost(const LaunchCost& cost) { cuda_emulation::set_declared_cost(cost); }

}  // namespace precis::cuda
