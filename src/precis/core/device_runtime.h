// The device services a backend gives core/: memory (an allocator per device), copies between
// the host and its device, and zeroing. A backend registers its runtime for its kind of
// device; core/ asks for it here and so knows no backend (core/ includes nothing from the
// folders above it). The CUDA backend registers its runtime with its kernels' table
// (kernels/cuda/kernels_cuda.h's install), the GPU's own or the kernel emulator's.
#pragma once

#include <cstddef>

#include "precis/core/allocator.h"
#include "precis/core/device.h"

namespace precis {

struct DeviceRuntime {
  // The allocator of device `index` of this kind.
  Allocator* (*allocator)(int index) = nullptr;
  // `bytes` from src to dst, each on the host or on this kind of device, in the stream's order
  // (when dst is host memory, it holds them on return).
  void (*copy)(const void* src, void* dst, size_t bytes, bool to_host, Stream stream) = nullptr;
  void (*zero)(void* x, size_t bytes, Stream stream) = nullptr;
};

// The runtime registered for `kind`; null when none is (always for the CPU, whose services
// core/ has itself).
const DeviceRuntime* device_runtime(DeviceKind kind);
// Makes `runtime` (static storage, or null to unregister) the one of `kind`, for the process.
void install_device_runtime(DeviceKind kind, const DeviceRuntime* runtime);

}  // namespace precis
