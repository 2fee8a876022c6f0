#include "device_memory.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>
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

// PageTouches' state: the guarded regions' pages (a byte each: 1 read, 2 written), fixed while
// it is alive, and the SIGSEGV handler it replaced.
struct Touches {
  struct Region {
    char* start;
    size_t bytes;
    std::vector<std::atomic<uint8_t>>* pages;
  };
  std::vector<Region> regions;
  size_t page = 4096;
  struct sigaction previous {};
};
Touches* touches = nullptr;

// Another thread may have opened the page for a read while this one faulted on it: mprotect is
// idempotent and the flags only grow, so concurrent faults on one page agree.
void on_fault(int signal, siginfo_t* info, void* context) {
  char* address = static_cast<char*>(info->si_addr);
  if (touches)
    for (const Touches::Region& r : touches->regions)
      if (address >= r.start && address < r.start + r.bytes) {
        const size_t index = size_t(address - r.start) / touches->page;
        const bool write = static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2;
        (*r.pages)[index].fetch_or(write ? 2 : 1);
        mprotect(r.start + index * touches->page, touches->page, write ? PROT_READ | PROT_WRITE : PROT_READ);
        return;
      }
  // Not ours: the crash it is, with the handler that was there.
  sigaction(signal, &touches->previous, nullptr);
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

PageTouches::PageTouches() {
  Guarded& g = guarded();
  std::lock_guard<std::mutex> lock(g.mu);
  check(touches == nullptr && g.open == 0, "PageTouches: one at a time, with guarded memory closed");
  touches = new Touches;
  touches->page = size_t(sysconf(_SC_PAGESIZE));
  for (auto& [p, bytes] : g.regions)
    touches->regions.push_back({static_cast<char*>(p), bytes,
                                new std::vector<std::atomic<uint8_t>>(bytes / touches->page)});
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &touches->previous);
}

PageTouches::~PageTouches() {
  sigaction(SIGSEGV, &touches->previous, nullptr);
  for (const Touches::Region& r : touches->regions) {
    protect(r.start, r.bytes, PROT_NONE);
    delete r.pages;
  }
  delete touches;
  touches = nullptr;
}

size_t PageTouches::read_bytes() const {
  size_t n = 0;
  for (const Touches::Region& r : touches->regions)
    for (const auto& page : *r.pages) n += (page.load() & 1) ? touches->page : 0;
  return n;
}

size_t PageTouches::written_bytes() const {
  size_t n = 0;
  for (const Touches::Region& r : touches->regions)
    for (const auto& page : *r.pages) n += (page.load() & 2) ? touches->page : 0;
  return n;
}

}  // namespace precis::cuda_emulation
