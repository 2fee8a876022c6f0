#include "emulator.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

thread_local precis::cuda_emulation::dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace precis::cuda_emulation {

namespace {

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "cuda emulator: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

// __syncthreads for the threads of one block.
class BlockBarrier {
 public:
  BlockBarrier(const char* kernel, int threads) : kernel_(kernel), threads_(threads) {}

  void wait() {
    std::unique_lock<std::mutex> lock(mu_);
    if (exited_ > 0) divergent();
    const uint64_t generation = generation_;
    if (++waiting_ == threads_) {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    if (!cv_.wait_for(lock, std::chrono::seconds(10), [&] { return generation_ != generation; }))
      fail(std::string(kernel_) + ": deadlock: " + std::to_string(waiting_) + " of " +
           std::to_string(threads_) + " threads of block " + std::to_string(blockIdx.x) +
           " waited 10 s at __syncthreads");
  }

  // A thread returned from the kernel.
  void exit() {
    std::lock_guard<std::mutex> lock(mu_);
    ++exited_;
    if (waiting_ > 0) divergent();
  }

 private:
  [[noreturn]] void divergent() {
    fail(std::string(kernel_) + ": divergent __syncthreads: a thread of block " +
         std::to_string(blockIdx.x) + " returned while others wait at (or will reach) a barrier");
  }

  const char* kernel_;
  const int threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0, exited_ = 0;
  uint64_t generation_ = 0;
};

thread_local BlockBarrier* current_barrier = nullptr;

}  // namespace

void syncthreads() {
  if (!current_barrier) fail("__syncthreads outside a kernel");
  current_barrier->wait();
}

void launch(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& body) {
  const int threads = int(block.x * block.y * block.z);
  if (threads <= 0 || threads > 1024) fail(std::string(kernel) + ": blocks of 1 to 1024 threads");
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        BlockBarrier barrier(kernel, threads);
        std::vector<std::thread> team;
        team.reserve(size_t(threads));
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx)
              team.emplace_back([&, tx, ty, tz, bx, by, bz] {
                threadIdx = {tx, ty, tz};
                blockIdx = {bx, by, bz};
                blockDim = block;
                gridDim = grid;
                current_barrier = &barrier;
                body();
                barrier.exit();
                current_barrier = nullptr;
              });
        for (std::thread& t : team) t.join();
      }
}

}  // namespace precis::cuda_emulation
