// Where an Arena's block comes from. Each device has one Allocator: the host's is aligned
// malloc; the CUDA backend adds one for GPU memory (cudaMallocAsync on the current stream) and
// one for pinned host memory (the staging buffers of host <-> GPU copies).
#pragma once

#include <cstddef>

#include "precis/core/device.h"

namespace precis {

class Allocator {
 public:
  virtual ~Allocator() = default;
  // `bytes` (rounded up to `alignment`, a power of two) on device(); throws Error when out of
  // memory, naming the size.
  virtual void* allocate(size_t bytes, size_t alignment) = 0;
  virtual void deallocate(void* p) = 0;
  // Sets `bytes` at p (memory of this allocator) to zero, in order with the current stream.
  virtual void zero(void* p, size_t bytes) = 0;
  virtual Device device() const = 0;
};

// Host memory from aligned_alloc.
Allocator& host_allocator();

// The allocator of `device`; throws Error for a device whose backend this build lacks.
Allocator& allocator_for(Device device);

// The error an op or allocation gives on a device this build has no backend for, naming what
// was asked ("linear on cuda:0 ...").
std::string no_backend_message(const std::string& what, Device device);

}  // namespace precis
