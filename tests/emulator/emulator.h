// The kernel emulator: runs the CUDA kernels' bodies (src/precis/kernels/cuda/*.cuh) on the
// host, so the CUDA twins' op tests run in CI without a GPU, also under ASan and TSan.
//
// - A launch runs its blocks in turn, on the thread that launches; a block's CUDA threads are
//   fibers (ucontext, a stack each, kept across launches), each seeing its own threadIdx and
//   the block's blockIdx / blockDim / gridDim (thread_local, set before each switch). Launches
//   from several host threads run one at a time.
// - __shared__ becomes `static`: one copy, shared by the threads of the block that runs (blocks
//   never overlap), the same storage a block's threads share on the GPU.
// - The threads run in turn, each until it reaches a barrier (__syncthreads, or its warp's for a
//   shuffle or an mma) or returns; a barrier opens when all it waits for are there. A thread
//   that returns while others wait at a barrier (a divergent barrier), or threads waiting at
//   barriers none can open (a deadlock), end the run with the kernel's name. Under TSan each
//   thread is a fiber of its own whose switches do not synchronize: only the barriers, the
//   block's start and its end order two threads' accesses, as on a GPU, so a missing
//   __syncthreads is a data race TSan reports at its line; an index off by one is an
//   out-of-bounds access ASan reports at its line. (Fibers, not a host thread per CUDA thread:
//   a barrier is two context switches in one process instead of a futex wake-up each, which
//   made a tiny model's training step spend 95% of its time in the scheduler.)
//
// - A launch the GPU would refuse (cudaErrorInvalidConfiguration, or ptxas's "too much shared
//   data") aborts with the kernel's name: a grid with no blocks, gridDim.x over 2^31 - 1 or
//   gridDim.y/z over 65535, a block of no threads or over 1024 (x and y at most 1024, z at most
//   64), or over 48 KiB of static shared memory (the PRECIS_SHARED declarations the first thread
//   of the first block reaches).
//
// What it cannot see: the GPU's memory model (anything that relies on ordering beyond
// __syncthreads, e.g. missing __threadfence between blocks, since blocks run one after
// another here), host/device pointer mix-ups unless device memory is guarded
// (device_memory.h: then the host's own reads and writes of it stop with SIGSEGV), a device
// pointer passed where a kernel expects host memory (all of it is host memory), register and
// shared-memory limits and occupancy, warp-synchronous code beyond shuffles and mma (votes are
// not emulated), and cuBLASLt and NCCL themselves. Keep shapes small: every thread of every
// block runs on the launching thread's one core.
//
// Include it before a kernel header, in files outside the unity build (the macros below would
// leak into the other files of a unity batch).
#pragma once

// What the kernels' headers test to pick their emulated form (host_device.h, cuda/launch.h).
#ifndef PRECIS_CUDA_EMULATION
#define PRECIS_CUDA_EMULATION
#endif

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "precis/kernels/cuda/launch_cost.h"

namespace precis::cuda_emulation {

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// Runs body() as the grid `grid` of blocks of `block` threads; kernel names the launch in
// messages.
void launch(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& body);

void syncthreads();

// mma.sync m16n8k16 for the calling thread's whole warp (kernels/cuda/mma.cuh, whose register
// layout it implements): every lane gives its A, B and C registers and gets its D; products
// exact in fp32, sums in fp32 in k order. bf16 or fp16 A and B. Only whole warps of 32 lanes.
void warp_mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4],
                       bool bf16);

// The cost the launcher declared for the next launch on this thread (cuda::declare_cost).
void set_declared_cost(const cuda::LaunchCost& cost);

// With measuring on (and device memory guarded, device_memory.h), each launch records its
// declared cost beside the bytes of the device pages it read and wrote (PageTouches), for
// tests/unit/emulator/test_launch_costs.cpp.
struct MeasuredLaunch {
  std::string kernel;
  bool declared = false;
  cuda::LaunchCost cost;
  size_t read_page_bytes = 0, written_page_bytes = 0;
};
void measure_launches(bool on);
std::vector<MeasuredLaunch> take_measured_launches();

// Counts a __shared__ variable (PRECIS_SHARED) against the running launch's 48 KiB of static
// shared memory: the first thread of the first block adds each address once.
void declare_shared(const char* name, const void* address, size_t bytes);

// The warp's exchange: every lane of the calling thread's warp gives `value` (its bits) and gets
// lane source_lane's (within its segment of `width` lanes). Only a whole warp's mask is
// emulated; a lane that returns while its warp waits aborts the run as a divergent shuffle.
uint64_t shuffle(unsigned mask, uint64_t value, int source_lane, int width);

template <class T>
T shuffle_as(unsigned mask, T value, int source_lane, int width) {
  static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable_v<T>);
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = shuffle(mask, bits, source_lane, width);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}

}  // namespace precis::cuda_emulation

// The names a kernel body uses, per emulated CUDA thread.
using dim3 = precis::cuda_emulation::dim3;
extern thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
inline void __syncthreads() { precis::cuda_emulation::syncthreads(); }

namespace precis::cuda_emulation {
// The calling thread's lane: its linear index in the block, modulo the warp's 32.
inline int lane_id() {
  return int((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32);
}
}  // namespace precis::cuda_emulation

// Warp shuffles; lanes count the block's threads in linear order, 32 to a warp.
template <class T>
T __shfl_sync(unsigned mask, T value, int source_lane, int width = 32) {
  return precis::cuda_emulation::shuffle_as(mask, value, source_lane, width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = 32) {
  return precis::cuda_emulation::shuffle_as(mask, value, precis::cuda_emulation::lane_id() ^ lane_mask, width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta, int width = 32) {
  // A lane whose source would pass its segment's end keeps its own value.
  const int lane = precis::cuda_emulation::lane_id(), within = lane % width;
  const int source = within + int(delta) < width ? lane + int(delta) : lane;
  return precis::cuda_emulation::shuffle_as(mask, value, source % width, width);
}

// Atomics: the host's, on the same memory (TSan sees them as atomic, so they are no race).
template <class T>
T atomicAdd(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value);
}
template <class T>
T atomicMax(T* address, T value) {
  std::atomic_ref<T> a(*address);
  T old = a.load();
  while (old < value && !a.compare_exchange_weak(old, value)) {
  }
  return old;
}
#define __shared__ static

// PRECIS_SHARED(type, name): a block's shared variable (host_device.h), here one static copy
// whose bytes the launch counts.
#define PRECIS_SHARED(type, name)          \
  static ::precis::SharedOf<type> name;    \
  ::precis::cuda_emulation::declare_shared(#name, &name, sizeof(name))

// EMULATE(kernel, grid, block, args...): kernel<<<grid, block>>>(args...) on the host.
#define EMULATE(kernel, grid, block, ...) \
  ::precis::cuda_emulation::launch(#kernel, grid, block, [&] { kernel(__VA_ARGS__); })
