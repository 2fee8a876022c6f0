#include "emulator.h"

#include "device_memory.h"
#include "fiber_context.h"
#include "precis/kernels/convert_math.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PRECIS_EMULATOR_TSAN 1
#endif
#endif

#if PRECIS_EMULATOR_TSAN
#include <sanitizer/tsan_interface.h>
#endif

thread_local precis::cuda_emulation::dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace precis::cuda_emulation {

namespace {

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "cuda emulator: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

// TSan's view of the fibers (fiber_context.h switches them without synchronizing): the
// barriers, a block's start and its end are the happens-before edges, as on a GPU.
#if PRECIS_EMULATOR_TSAN
extern "C" void AnnotateIgnoreWritesBegin(const char* file, int line);
extern "C" void AnnotateIgnoreWritesEnd(const char* file, int line);
void tsan_release(void* sync) { __tsan_release(sync); }
void tsan_acquire(void* sync) { __tsan_acquire(sync); }
// The scheduler's writes of the thread-locals every fiber reads (threadIdx, the warp): one OS
// thread's variables, rewritten before each switch, which no fiber writes.
void tsan_ignore_writes(bool on) {
  if (on)
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  else
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
}
#else
void tsan_release(void*) {}
void tsan_acquire(void*) {}
void tsan_ignore_writes(bool) {}
#endif

// A CUDA thread's stack: mapped once and kept (reused by the thread of that index in every
// block), with a page below it that stops an overflow.
constexpr size_t kStackBytes = size_t(1) << 20;

struct Stack {
  Stack() {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, kStackBytes + page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) fail("cannot map a CUDA thread's stack");
    mprotect(p, page, PROT_NONE);
    bottom = static_cast<char*>(p) + page;
  }
  char* bottom = nullptr;
};

// Where a CUDA thread of the running block is.
enum Where : int { kRunning, kAtSyncthreads, kAtWarpBarrier, kReturned };

// One CUDA thread: its context, stack and index.
struct Fiber {
  FiberContext context;
  std::unique_ptr<Stack> stack;
  dim3 index;
  int warp = 0;
  std::atomic<int> where{kRunning};
};

// A barrier's happens-before: the threads arriving in one generation release its slot and
// those leaving it acquire that slot; two slots, so that a thread already past the barrier,
// arriving at the next one, cannot hand its later writes to a thread still leaving this one.
struct BarrierSync {
  std::atomic<uint32_t> generation{0};
  char slots[2] = {};
  void* slot(uint32_t g) { return &slots[g % 2]; }
};

// One warp of the block: a slot per lane for the values a shuffle exchanges, and for the
// registers an mma exchanges (A 4, B 2, C 4 words a lane).
struct Warp {
  explicit Warp(int lanes) : lanes(lanes) {}
  const int lanes;
  BarrierSync sync;
  uint64_t slots[32] = {};
  uint32_t mma[32][10] = {};
};

class Block;
thread_local Block* current_block = nullptr;
char block_start = 0;  // for TSan: what the scheduler wrote before a block is its threads' to read
thread_local Fiber* current_fiber = nullptr;
thread_local Warp* current_warp = nullptr;

// The CUDA threads of one block as fibers on the launching thread, run in turn: each runs until
// it reaches a barrier (__syncthreads, a warp's shuffle or mma) or returns. A barrier opens when
// every thread it waits for is there; a thread that returned while others wait at a barrier is a
// divergent barrier, and threads waiting at barriers that none can open are a deadlock: both end
// the run with the kernel's name, at once (no clock: the order is fixed).
class Block {
 public:
  Block(const char* kernel, dim3 index, dim3 block, int threads, std::deque<Fiber>& fibers,
        const std::function<void()>& body)
      : kernel_(kernel), index_(index), threads_(threads), fibers_(fibers), body_(body) {
    for (int first = 0; first < threads; first += 32)
      warps_.push_back(std::make_unique<Warp>(std::min(32, threads - first)));
    for (int t = 0; t < threads; ++t) {
      Fiber& f = fibers_[size_t(t)];
      f.index = {unsigned(t) % block.x, unsigned(t) / block.x % block.y,
                 unsigned(t) / (block.x * block.y)};
      f.warp = t / 32;
      f.where = kRunning;
      start_fiber(f.context, f.stack->bottom, kStackBytes, &Block::entry, &f, scheduler_);
    }
  }

  void run() {
    adopt_current_thread(scheduler_);
    current_block = this;
    tsan_release(&block_start);
    for (;;) {
      bool ran = false;
      for (int t = 0; t < threads_; ++t)
        if (fibers_[size_t(t)].where == kRunning) {
          switch_to(t);
          ran = true;
        }
      if (!ran && !open_barriers()) break;
    }
    tsan_acquire(&end_);
    current_block = nullptr;
    enter(nullptr, nullptr);
  }

  // In the running thread: wait at __syncthreads, or at its warp's barrier.
  void syncthreads() { wait(kAtSyncthreads, block_sync_); }
  void warp_barrier() { wait(kAtWarpBarrier, current_warp->sync); }

 private:
  static void entry(void* fiber) {
    tsan_acquire(&block_start);
    Block* self = current_block;
    self->body_();
    static_cast<Fiber*>(fiber)->where = kReturned;
    tsan_release(&self->end_);
  }

  // The thread-locals the kernel reads, for the fiber about to run (written by the scheduler
  // alone).
  void enter(Fiber* f, Warp* warp) {
    tsan_ignore_writes(true);
    if (f) threadIdx = f->index;
    current_fiber = f;
    current_warp = warp;
    tsan_ignore_writes(false);
  }

  void switch_to(int t) {
    Fiber& f = fibers_[size_t(t)];
    enter(&f, warps_[size_t(f.warp)].get());
    switch_fiber(scheduler_, f.context);
  }

  void wait(Where where, BarrierSync& sync) {
    Fiber& f = *current_fiber;
    const uint32_t generation = sync.generation;
    tsan_release(sync.slot(generation));
    f.where = where;
    switch_fiber(f.context, scheduler_);
    tsan_acquire(sync.slot(generation));
  }

  // With no thread running: opens the warps' barriers whose every lane is there, else
  // __syncthreads when every thread is there; false when every thread has returned. A barrier
  // a returned thread will never reach, or barriers none can open, end the run.
  bool open_barriers() {
    bool opened = false;
    int at_syncthreads = 0, at_warp = 0, returned = 0;
    for (size_t w = 0; w < warps_.size(); ++w) {
      int waiting = 0, gone = 0;
      const int first = int(w) * 32, lanes = warps_[w]->lanes;
      for (int t = first; t < first + lanes; ++t) {
        const int where = fibers_[size_t(t)].where;
        waiting += where == kAtWarpBarrier;
        gone += where == kReturned;
      }
      if (waiting > 0 && gone > 0) divergent("warp shuffle");
      if (waiting == lanes) {
        ++warps_[w]->sync.generation;
        for (int t = first; t < first + lanes; ++t) fibers_[size_t(t)].where = kRunning;
        opened = true;
      }
      at_warp += waiting;
    }
    if (opened) return true;
    for (int t = 0; t < threads_; ++t) {
      const int where = fibers_[size_t(t)].where;
      at_syncthreads += where == kAtSyncthreads;
      returned += where == kReturned;
    }
    if (returned == threads_) return false;
    if (at_syncthreads > 0 && returned > 0) divergent("__syncthreads");
    if (at_syncthreads == threads_) {
      ++block_sync_.generation;
      for (int t = 0; t < threads_; ++t) fibers_[size_t(t)].where = kRunning;
      return true;
    }
    fail(std::string(kernel_) + ": deadlock: in block (" + std::to_string(index_.x) + ", " +
         std::to_string(index_.y) + ", " + std::to_string(index_.z) + "), " +
         std::to_string(at_syncthreads) + " threads wait at __syncthreads and " +
         std::to_string(at_warp) + " at warp barriers that the others never reach");
  }

  [[noreturn]] void divergent(const char* what) {
    fail(std::string(kernel_) + ": divergent " + what + ": a thread of block " +
         std::to_string(index_.x) + " returned while others wait at (or will reach) it");
  }

  const char* kernel_;
  const dim3 index_;
  const int threads_;
  std::deque<Fiber>& fibers_;
  const std::function<void()>& body_;
  std::vector<std::unique_ptr<Warp>> warps_;
  BarrierSync block_sync_;
  char end_ = 0;  // for TSan: what the threads wrote is the scheduler's to read after the block
  FiberContext scheduler_;
};

void warp_barrier() {
  if (!current_block || !current_warp) fail("a warp barrier outside a kernel");
  current_block->warp_barrier();
}

}  // namespace

uint64_t shuffle(unsigned mask, uint64_t value, int source_lane, int width) {
  Warp* warp = current_warp;
  if (!warp) fail("a warp shuffle outside a kernel");
  const int lane = lane_id();
  const unsigned full = warp->lanes == 32 ? 0xFFFFFFFFu : (1u << warp->lanes) - 1;
  // A partial mask would need the lanes outside it to skip the exchange: not emulated.
  if (mask != full)
    fail("a warp shuffle with mask " + std::to_string(mask) +
         ": only the whole warp's is emulated");
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0)
    fail("a warp shuffle of width " + std::to_string(width));
  warp->slots[lane] = value;
  warp_barrier();  // every lane has written
  // CUDA's rule: the source lane is taken within the lane's segment of `width` lanes; a lane
  // outside the warp's existing lanes gives the caller its own value.
  const int source = (lane / width) * width + ((source_lane % width) + width) % width;
  const uint64_t result = source < warp->lanes ? warp->slots[source] : value;
  warp_barrier();  // every lane has read before the next shuffle writes
  return result;
}

void warp_mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                       const float (&c)[4], bool bf16) {
  Warp* warp = current_warp;
  if (!warp) fail("an mma outside a kernel");
  if (warp->lanes != 32)
    fail("an mma in a warp of " + std::to_string(warp->lanes) + " lanes: mma.sync takes 32");
  const int lane = lane_id();
  for (int r = 0; r < 4; ++r) warp->mma[lane][r] = a[r];
  for (int r = 0; r < 2; ++r) warp->mma[lane][4 + r] = b[r];
  for (int e = 0; e < 4; ++e) std::memcpy(&warp->mma[lane][6 + e], &c[e], sizeof(float));
  warp_barrier();  // every lane's registers are in
  const auto half = [&](uint32_t word, int which) {
    const uint16_t bits = uint16_t(which ? word >> 16 : word & 0xFFFFu);
    return bf16 ? convert_math::from_bf16(bits) : convert_math::from_f16(bits);
  };
  // The matrices, from the registers by the PTX ISA's table for mma.m16n8k16 (written here on
  // its own, not with mma.cuh's helpers, so that the emulator checks what kernels assume):
  // groupID = lane >> 2, threadID_in_group = lane % 4;
  // A: a0,a1 row groupID, a2,a3 row groupID + 8 (for the i-th 16-bit value, i = 0..7: row
  //    groupID + 8 for i in {2, 3, 6, 7}, column threadID_in_group * 2 + (i & 1) + 8 for i >= 4);
  // B: b0,b1 column groupID, row threadID_in_group * 2 + (i & 1) + 8 for i >= 2;
  // C: c0,c1 row groupID, c2,c3 row groupID + 8, column threadID_in_group * 2 + (i & 1).
  float A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < 32; ++l) {
    const int group = l >> 2, in_group = l % 4;
    for (int i = 0; i < 8; ++i) {
      const int row = group + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8 : 0);
      const int col = in_group * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      A[row][col] = half(warp->mma[l][i / 2], i % 2);
    }
    for (int i = 0; i < 4; ++i)
      B[in_group * 2 + (i & 1) + (i >= 2 ? 8 : 0)][group] = half(warp->mma[l][4 + i / 2], i % 2);
    for (int i = 0; i < 4; ++i)
      std::memcpy(&C[group + (i >= 2 ? 8 : 0)][in_group * 2 + (i & 1)], &warp->mma[l][6 + i], 4);
  }
  warp_barrier();  // every lane has read before a next mma writes
  const int group = lane >> 2, in_group = lane % 4;
  for (int e = 0; e < 4; ++e) {
    const int row = group + (e >= 2 ? 8 : 0), col = in_group * 2 + (e & 1);
    float sum = C[row][col];
    for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
    d[e] = sum;
  }
}

void syncthreads() {
  if (!current_block) fail("__syncthreads outside a kernel");
  current_block->syncthreads();
}

namespace {

std::string str(dim3 d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

// What cudaLaunchKernel refuses with cudaErrorInvalidConfiguration on every GPU precis builds
// for (sm_80, sm_90): the CUDA C++ Programming Guide's table of compute capabilities.
void check_configuration(const char* kernel, dim3 grid, dim3 block) {
  const auto refuse = [&](const std::string& why) {
    fail(std::string(kernel) + ": invalid configuration argument: grid " + str(grid) + ", block " +
         str(block) + ": " + why);
  };
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    refuse("a grid of no blocks (launch nothing instead)");
  if (grid.x > 2147483647u) refuse("gridDim.x is at most 2^31 - 1");
  if (grid.y > 65535 || grid.z > 65535) refuse("gridDim.y and gridDim.z are at most 65535");
  if (block.x == 0 || block.y == 0 || block.z == 0) refuse("a block of no threads");
  if (block.x > 1024 || block.y > 1024 || block.z > 64)
    refuse("blockDim.x and .y are at most 1024, blockDim.z at most 64");
  if (uint64_t(block.x) * block.y * block.z > 1024) refuse("at most 1024 threads per block");
}

// The static shared memory of the launch that runs: PRECIS_SHARED's declarations, by address.
constexpr size_t kStaticSharedLimit = 48 * 1024;
struct SharedDeclarations {
  const char* kernel = "";
  std::vector<std::pair<const void*, size_t>> variables;
  size_t bytes = 0;
} launch_shared;

}  // namespace

void declare_shared(const char* name, const void* address, size_t bytes) {
  // Every thread of every block runs the declaration; the first thread of the first block
  // counts (blocks run one after another, and that thread alone writes the list).
  if (blockIdx.x != 0 || blockIdx.y != 0 || blockIdx.z != 0 || threadIdx.x != 0 ||
      threadIdx.y != 0 || threadIdx.z != 0)
    return;
  for (const auto& [seen, size] : launch_shared.variables)
    if (seen == address) return;
  launch_shared.variables.emplace_back(address, bytes);
  launch_shared.bytes += bytes;
  if (launch_shared.bytes > kStaticSharedLimit)
    fail(std::string(launch_shared.kernel) + ": " + std::to_string(launch_shared.bytes) +
         " bytes of static shared memory (with " + name + "): a block may have at most " +
         std::to_string(kStaticSharedLimit) + " (48 KiB; ptxas: too much shared data)");
}

namespace {

thread_local bool has_declared = false;
thread_local cuda::LaunchCost declared_cost;
std::atomic<bool> measuring{false};
std::mutex measured_mu;
std::vector<MeasuredLaunch> measured;

}  // namespace

void set_declared_cost(const cuda::LaunchCost& cost) {
  declared_cost = cost;
  has_declared = true;
}

void measure_launches(bool on) { measuring = on; }

std::vector<MeasuredLaunch> take_measured_launches() {
  std::lock_guard<std::mutex> lock(measured_mu);
  return std::exchange(measured, {});
}

void launch(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& body) {
  check_configuration(kernel, grid, block);
  const int threads = int(block.x * block.y * block.z);
  MeasuredLaunch record{kernel, has_declared, declared_cost, 0, 0};
  has_declared = false;
  // One device: launches from several host threads run one after another, on the thread
  // that launches: its fibers, one per CUDA thread of a block, kept across launches.
  static std::mutex device;
  static std::deque<Fiber> fibers;
  std::lock_guard<std::mutex> one_at_a_time(device);
  while (int(fibers.size()) < threads) {
    Fiber& f = fibers.emplace_back();
    f.stack = std::make_unique<Stack>();
  }
  launch_shared = SharedDeclarations{kernel, {}, 0};
  std::optional<DeviceMemoryAccess> access;
  std::optional<PageTouches> touches;
  if (measuring)
    touches.emplace();
  else
    access.emplace();
  tsan_ignore_writes(true);
  blockDim = block;
  gridDim = grid;
  tsan_ignore_writes(false);
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        tsan_ignore_writes(true);
        blockIdx = {bx, by, bz};
        tsan_ignore_writes(false);
        Block(kernel, {bx, by, bz}, block, threads, fibers, body).run();
      }
  if (touches) {
    record.read_page_bytes = touches->read_bytes();
    record.written_page_bytes = touches->written_bytes();
    std::lock_guard<std::mutex> lock(measured_mu);
    measured.push_back(std::move(record));
  }
}

}  // namespace precis::cuda_emulation
