// The kernel emulator: runs the CUDA kernels' bodies (src/precis/kernels/cuda/*.cuh) on the
// host, so the CUDA twins' op tests run in CI without a GPU, also under ASan and TSan.
//
// - A launch runs its blocks in turn; a block runs one host thread per CUDA thread (a pool kept
//   across launches), which sees its own threadIdx / blockIdx / blockDim / gridDim
//   (thread_local). Launches from several host threads run one at a time.
// - __shared__ becomes `static`: one copy, shared by the threads of the block that runs (blocks
//   never overlap), the same storage a block's threads share on the GPU.
// - __syncthreads() is a barrier of the block's threads. A thread that returns while others
//   wait at it (a divergent barrier) or a barrier nobody completes within 10 s (a deadlock)
//   aborts with the kernel's name. Between barriers the threads really run concurrently, so a
//   missing __syncthreads is a data race TSan reports at its line, and an index off by one an
//   out-of-bounds access ASan reports at its line.
//
// What it cannot see: the GPU's memory model (anything that relies on ordering beyond
// __syncthreads, e.g. missing __threadfence between blocks, since blocks run one after
// another here), host/device pointer mix-ups (all memory is host memory), register and
// shared-memory limits and occupancy, warp-synchronous code (shuffles and votes are not
// emulated yet), and cuBLASLt and NCCL themselves. Keep shapes small: threads are real threads.
//
// Include it before a kernel header, in files outside the unity build (the macros below would
// leak into the other files of a unity batch).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace precis::cuda_emulation {

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// Runs body() as the grid `grid` of blocks of `block` threads; kernel names the launch in
// messages.
void launch(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& body);

void syncthreads();

}  // namespace precis::cuda_emulation

// The names a kernel body uses, per emulated CUDA thread.
using dim3 = precis::cuda_emulation::dim3;
extern thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
inline void __syncthreads() { precis::cuda_emulation::syncthreads(); }
#define __shared__ static

// EMULATE(kernel, grid, block, args...): kernel<<<grid, block>>>(args...) on the host.
#define EMULATE(kernel, grid, block, ...) \
  ::precis::cuda_emulation::launch(#kernel, grid, block, [&] { kernel(__VA_ARGS__); })
