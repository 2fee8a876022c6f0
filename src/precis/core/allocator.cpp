#include "precis/core/allocator.h"

#include <cstdlib>
#include <cstring>

#include "precis/core/device_runtime.h"
#include "precis/core/error.h"

namespace precis {

namespace {

class HostAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes, size_t alignment) override {
    size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded ? rounded : alignment);
    check(p != nullptr, "out of memory allocating " + std::to_string(bytes) + " bytes");
    return p;
  }
  void deallocate(void* p) override { std::free(p); }
  void zero(void* p, size_t bytes) override { std::memset(p, 0, bytes); }
  Device device() const override { return Device::cpu(); }
};

}  // namespace

Allocator& host_allocator() {
  static HostAllocator host;
  return host;
}

std::string no_backend_message(const std::string& what, Device device) {
  return what + " on " + device.name() +
         ": no backend for that device here (this build or process runs only on the CPU, or that "
         "op has no CUDA twin yet)";
}

Allocator& allocator_for(Device device) {
  switch (device.kind) {
    case DeviceKind::CPU:
      return host_allocator();
    case DeviceKind::CUDA:
      if (const DeviceRuntime* r = device_runtime(device.kind); r && r->allocator)
        return *r->allocator(device.index);
      break;
  }
  throw Error(no_backend_message("memory", device));
}

}  // namespace precis
