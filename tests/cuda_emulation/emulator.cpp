#include "emulator.h"

#include "device_memory.h"
#include "precis/kernels/convert_math.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <semaphore>
#include <thread>
#include <utility>
#include <vector>

thread_local precis::cuda_emulation::dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace precis::cuda_emulation {

namespace {

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "cuda emulator: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

// __syncthreads for the threads of one block, and a warp's shuffle for the threads of one warp.
class BlockBarrier {
 public:
  BlockBarrier(const char* kernel, int threads, const char* what = "__syncthreads")
      : kernel_(kernel), what_(what), threads_(threads) {}

  // On atomics and futex waits (std::atomic::wait), not a mutex and condition variable: at every
  // barrier each thread sleeps and wakes once, without queueing on a mutex after the wake-up.
  void wait() {
    const uint32_t generation = generation_.load();
    // Dekker with exit(): of a thread arriving here and one returning from the kernel, at
    // least one sees the other's count, so a divergent barrier always ends the run. An exit
    // counts only while this barrier is still open: a thread slow to look may find exits that
    // came after the barrier completed and the others ran to the kernel's end.
    const int arrived = arrived_.fetch_add(1) + 1;
    if (exited_.load() > 0 && generation_.load() == generation) divergent();
    if (arrived == threads_) {
      arrived_.store(0);  // before the next generation: no thread can arrive until it begins
      generation_.fetch_add(1);
      generation_.notify_all();
      return;
    }
    while (generation_.load() == generation) generation_.wait(generation);
  }

  // A thread returned from the kernel.
  void exit() {
    exited_.fetch_add(1);
    if (arrived_.load() > 0) divergent();
  }

 private:
  [[noreturn]] void divergent() {
    fail(std::string(kernel_) + ": divergent " + what_ + ": a thread of block " +
         std::to_string(blockIdx.x) + " returned while others wait at (or will reach) it");
  }

  const char* kernel_;
  const char* what_;
  const int threads_;
  std::atomic<int> arrived_{0}, exited_{0};
  std::atomic<uint32_t> generation_{0};
};

// One warp of a block: its barrier and a slot per lane for the values a shuffle exchanges, and
// for the registers an mma exchanges (A 4, B 2, C 4 words a lane).
struct Warp {
  Warp(const char* kernel, int lanes) : barrier(kernel, lanes, "warp shuffle"), lanes(lanes) {}
  BlockBarrier barrier;
  const int lanes;
  uint64_t slots[32] = {};
  uint32_t mma[32][10] = {};
};

thread_local BlockBarrier* current_barrier = nullptr;
thread_local Warp* current_warp = nullptr;

}  // namespace

uint64_t shuffle(unsigned mask, uint64_t value, int source_lane, int width) {
  Warp* warp = current_warp;
  if (!warp) fail("a warp shuffle outside a kernel");
  const int lane = lane_id();
  const unsigned full = warp->lanes == 32 ? 0xFFFFFFFFu : (1u << warp->lanes) - 1;
  // A partial mask would need the lanes outside it to skip the exchange: not emulated.
  if (mask != full) fail("a warp shuffle with mask " + std::to_string(mask) + ": only the whole warp's is emulated");
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0) fail("a warp shuffle of width " + std::to_string(width));
  warp->slots[lane] = value;
  warp->barrier.wait();  // every lane has written
  // CUDA's rule: the source lane is taken within the lane's segment of `width` lanes; a lane
  // outside the warp's existing lanes gives the caller its own value.
  const int source = (lane / width) * width + ((source_lane % width) + width) % width;
  const uint64_t result = source < warp->lanes ? warp->slots[source] : value;
  warp->barrier.wait();  // every lane has read before the next shuffle writes
  return result;
}

void warp_mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4],
                       bool bf16) {
  Warp* warp = current_warp;
  if (!warp) fail("an mma outside a kernel");
  if (warp->lanes != 32) fail("an mma in a warp of " + std::to_string(warp->lanes) + " lanes: mma.sync takes 32");
  const int lane = lane_id();
  for (int r = 0; r < 4; ++r) warp->mma[lane][r] = a[r];
  for (int r = 0; r < 2; ++r) warp->mma[lane][4 + r] = b[r];
  for (int e = 0; e < 4; ++e) std::memcpy(&warp->mma[lane][6 + e], &c[e], sizeof(float));
  warp->barrier.wait();  // every lane's registers are in
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
    for (int i = 0; i < 4; ++i) B[in_group * 2 + (i & 1) + (i >= 2 ? 8 : 0)][group] = half(warp->mma[l][4 + i / 2], i % 2);
    for (int i = 0; i < 4; ++i) std::memcpy(&C[group + (i >= 2 ? 8 : 0)][in_group * 2 + (i & 1)], &warp->mma[l][6 + i], 4);
  }
  warp->barrier.wait();  // every lane has read before a next mma writes
  const int group = lane >> 2, in_group = lane % 4;
  for (int e = 0; e < 4; ++e) {
    const int row = group + (e >= 2 ? 8 : 0), col = in_group * 2 + (e & 1);
    float sum = C[row][col];
    for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
    d[e] = sum;
  }
}

void syncthreads() {
  if (!current_barrier) fail("__syncthreads outside a kernel");
  current_barrier->wait();
}

namespace {

// The CUDA threads of a block: a pool of host threads kept across launches (starting 256
// threads for every block of every launch made a tiny model's training step take seconds).
// Worker t runs CUDA thread t of each block in turn; a block starts when the previous one has
// ended, as the emulator's blocks never overlap.
class ThreadPool {
 public:
  ~ThreadPool() {
    stop_ = true;
    for (auto& w : workers_) w->go.release();
    for (auto& w : workers_) w->thread.join();
  }

  // task(t) on workers 0 .. threads-1 at once; returns when all have returned. Only those
  // workers wake: a block of 32 threads costs 32 wake-ups, not one per worker of the pool.
  void run(int threads, const std::function<void(int)>& task) {
    while (int(workers_.size()) < threads) {
      const int index = int(workers_.size());
      auto worker = std::make_unique<Worker>();
      // The thread gets its Worker itself: the vector may move its pointers as it grows.
      Worker* self = worker.get();
      worker->thread = std::thread([this, self, index] { work(*self, index); });
      workers_.push_back(std::move(worker));
    }
    task_ = &task;
    {
      std::lock_guard<std::mutex> lock(mu_);
      remaining_ = threads;
    }
    for (int t = 0; t < threads; ++t) workers_[size_t(t)]->go.release();
    std::unique_lock<std::mutex> lock(mu_);
    // A block whose threads wait at a barrier some never reach (a deadlock) never ends.
    if (!done_.wait_for(lock, std::chrono::seconds(30), [&] { return remaining_ == 0; }))
      fail(std::string(kernel_name_) + ": deadlock: block (" + std::to_string(blockIdx_.x) + ", " +
           std::to_string(blockIdx_.y) + ", " + std::to_string(blockIdx_.z) +
           ") did not finish in 30 s (threads waiting at a barrier others never reach?)");
    task_ = nullptr;
  }

  // For the deadlock message: the launch and block the pool runs.
  const char* kernel_name_ = "";
  dim3 blockIdx_;

 private:
  struct Worker {
    std::thread thread;
    std::binary_semaphore go{0};
  };

  void work(Worker& self, int index) {
    for (;;) {
      self.go.acquire();  // what run() wrote before releasing it is visible from here
      if (stop_) return;
      (*task_)(index);
      std::lock_guard<std::mutex> lock(mu_);
      if (--remaining_ == 0) done_.notify_one();
    }
  }

  std::mutex mu_;
  std::condition_variable done_;
  std::vector<std::unique_ptr<Worker>> workers_;  // only run() and the destructor touch it
  const std::function<void(int)>* task_ = nullptr;
  int remaining_ = 0;
  bool stop_ = false;
};

}  // namespace

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
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) refuse("a grid of no blocks (launch nothing instead)");
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
  // One device: launches from several host threads run one after another.
  static std::mutex device;
  static ThreadPool pool;
  std::lock_guard<std::mutex> one_at_a_time(device);
  launch_shared = SharedDeclarations{kernel, {}, 0};
  std::optional<DeviceMemoryAccess> access;
  std::optional<PageTouches> touches;
  if (measuring) touches.emplace();
  else access.emplace();
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        BlockBarrier barrier(kernel, threads);
        std::vector<std::unique_ptr<Warp>> warps;
        for (int first = 0; first < threads; first += 32)
          warps.push_back(std::make_unique<Warp>(kernel, std::min(32, threads - first)));
        pool.kernel_name_ = kernel;
        pool.blockIdx_ = {bx, by, bz};
        pool.run(threads, [&](int t) {
          threadIdx = {unsigned(t) % block.x, unsigned(t) / block.x % block.y,
                       unsigned(t) / (block.x * block.y)};
          blockIdx = {bx, by, bz};
          blockDim = block;
          gridDim = grid;
          current_barrier = &barrier;
          current_warp = warps[size_t(t / 32)].get();
          body();
          current_warp->barrier.exit();
          barrier.exit();
          current_barrier = nullptr;
          current_warp = nullptr;
        });
      }
  if (touches) {
    record.read_page_bytes = touches->read_bytes();
    record.written_page_bytes = touches->written_bytes();
    std::lock_guard<std::mutex> lock(measured_mu);
    measured.push_back(std::move(record));
  }
}

}  // namespace precis::cuda_emulation
