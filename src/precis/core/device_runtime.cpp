#include "precis/core/device_runtime.h"

#include <atomic>

#include "precis/core/error.h"

namespace precis {

namespace {

// One slot per DeviceKind.
std::atomic<const DeviceRuntime*> runtimes[2] = {nullptr, nullptr};

std::atomic<const DeviceRuntime*>& slot(DeviceKind kind) {
  const size_t i = static_cast<size_t>(kind);
  check(i < std::size(runtimes), "device runtime: unknown device kind");
  return runtimes[i];
}

}  // namespace

const DeviceRuntime* device_runtime(DeviceKind kind) {
  return slot(kind).load(std::memory_order_acquire);
}

void install_device_runtime(DeviceKind kind, const DeviceRuntime* runtime) {
  slot(kind).store(runtime, std::memory_order_release);
}

}  // namespace precis
