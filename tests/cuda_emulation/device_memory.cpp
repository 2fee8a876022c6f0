#include "device_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "precis/core/error.h"

namespace precis::cuda_emulation {

namespace {

constexpr size_t kAlign = 256;  // as cudaMalloc aligns

struct Guarded {
  std::mutex mu;
  bool on = false;
  std::map<void*, size_t> regions;  // guarded allocations: start -> mapped bytes
  int open = 0;                     // DeviceMemoryAccess scopes alive
};

// Never destroyed: device memory may be freed by static objects' destructors at exit.
Guarded& guarded() {
  static auto* g = new Guarded;
  return *g;
}

void protect(void* p, size_t bytes, int access) {
  check(mprotect(p, bytes, access) == 0, "emulated device memory: mprotect failed");
}

}  // namespace

void guard_device_memory(bool on) {
  std::lock_guard<std::mutex> lock(guarded().mu);
  guarded().on = on;
}

void* device_allocate(size_t bytes) {
  Guarded& g = guarded();
  std::lock_guard<std::mutex> lock(g.mu);
  if (!g.on) {
    void* p = std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign + (bytes ? 0 : kAlign));
    check(p != nullptr, "emulated cudaMalloc of " + std::to_string(bytes) + " bytes");
    return p;
  }
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t mapped = (bytes + page - 1) / page * page + (bytes ? 0 : page);
  void* p = mmap(nullptr, mapped, g.open > 0 ? PROT_READ | PROT_WRITE : PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(p != MAP_FAILED, "emulated cudaMalloc of " + std::to_string(bytes) + " bytes (mmap)");
  g.regions[p] = mapped;
  return p;
}

void device_release(void* p) {
  if (!p) return;
  Guarded& g = guarded();
  std::lock_guard<std::mutex> lock(g.mu);
  auto it = g.regions.find(p);
  if (it == g.regions.end()) return std::free(p);
  munmap(it->first, it->second);
  g.regions.erase(it);
}

DeviceMemoryAccess::DeviceMemoryAccess() {
  Guarded& g = guarded();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.open++ == 0)
    for (auto& [p, bytes] : g.regions) protect(p, bytes, PROT_READ | PROT_WRITE);
}

DeviceMemoryAccess::~DeviceMemoryAccess() {
  Guarded& g = guarded();
  std::lock_guard<std::mutex> lock(g.mu);
  if (--g.open == 0)
    for (auto& [p, bytes] : g.regions) protect(p, bytes, PROT_NONE);
}

}  // namespace precis::cuda_emulation
