// The emulated GPU's memory, optionally guarded: with guarding on, device allocations are
// mapped without access, and only the emulator's own work opens them (a kernel launch, a copy
// or fill in stream order, a GEMM). Host code that reads or writes device memory directly, which
// on a GPU is a crash or garbage, then stops with SIGSEGV at the line that does it, instead of
// working by accident because the emulator's "device" memory is host memory.
#pragma once

#include <cstddef>

namespace precis::cuda_emulation {

// Whether allocations from now on are guarded (default: not; the op tests keep ASan's checks of
// plain heap blocks instead). Allocations keep the kind they were made with.
void guard_device_memory(bool on);

void* device_allocate(size_t bytes);
void device_release(void* p);

// The pages of guarded device memory one launch touched, for the check of its declared cost
// (launch_cost.h): with a PageTouches alive, guarded memory stays closed and each first read or
// write of a page is caught (SIGSEGV, the fault's write bit), counted, and the page opened for
// that access; on destruction every page is closed again. Only while no DeviceMemoryAccess is
// open, and one at a time.
class PageTouches {
 public:
  PageTouches();
  ~PageTouches();
  PageTouches(const PageTouches&) = delete;
  PageTouches& operator=(const PageTouches&) = delete;
  // Bytes of the pages read (first touched by a read), and of the pages written.
  size_t read_bytes() const;
  size_t written_bytes() const;
};

// Opens every guarded allocation for the scope (nests, across threads), then closes them again.
class DeviceMemoryAccess {
 public:
  DeviceMemoryAccess();
  ~DeviceMemoryAccess();
  DeviceMemoryAccess(const DeviceMemoryAccess&) = delete;
  DeviceMemoryAccess& operator=(const DeviceMemoryAccess&) = delete;
};

}  // namespace precis::cuda_emulation
