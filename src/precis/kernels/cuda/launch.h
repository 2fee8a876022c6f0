// How a launcher (cuda/<op>_cuda.cu) starts a kernel: PRECIS_LAUNCH(kernel, grid, block,
// stream, args...) is kernel<<<grid, block, 0, stream>>>(args...) under nvcc, and the kernel
// emulator's launch when the tests compile the launchers as host C++ (PRECIS_CUDA_EMULATION,
// tests/cuda_emulation/), so the emulator runs the launchers' own grids, strides and
// arguments, not a copy of them.
#pragma once

#include <cstdint>

#include "precis/core/device.h"
#include "precis/core/host_device.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

namespace precis::cuda {
inline cudaStream_t native(Stream s) { return static_cast<cudaStream_t>(s.handle); }
// cudaSetDevice(stream's device), once per thread and device.
void use_device(Stream s);
// Throws Error naming the kernel when its launch failed (cudaGetLastError).
void check_launch(const char* kernel);
}  // namespace precis::cuda

#define PRECIS_LAUNCH(kernel, grid, block, stream, ...)                                     \
  do {                                                                                      \
    ::precis::cuda::use_device(stream);                                                     \
    kernel<<<(grid), (block), 0, ::precis::cuda::native(stream)>>>(__VA_ARGS__);            \
    ::precis::cuda::check_launch(#kernel);                                                  \
  } while (0)

#elif defined(PRECIS_CUDA_COUNTING)
// The cost model's counting backend (bench/gpu/counting/): the launch is recorded with its
// grid, block and declared cost (launch_cost.h), and nothing runs. The kernel bodies still
// parse as the emulator's host C++ (its emulator.h is force-included), at the GPU's grid sizes.
#include "emulator.h"

namespace precis::counting {
void record_launch(const char* kernel, dim3 grid, dim3 block, Stream stream);
}  // namespace precis::counting

// The call in an unevaluated operand: it checks the arguments against the kernel as a real
// launch would, and runs nothing.
#define PRECIS_LAUNCH(kernel, grid, block, stream, ...)                       \
  do {                                                                        \
    ::precis::counting::record_launch(#kernel, (grid), (block), (stream));    \
    (void)sizeof((kernel(__VA_ARGS__), 0));                                   \
  } while (0)

#elif defined(PRECIS_CUDA_EMULATION)
#include "emulator.h"  // tests/cuda_emulation/ (the emulated build also force-includes it)

#define PRECIS_LAUNCH(kernel, grid, block, stream, ...)                                   \
  do {                                                                                    \
    (void)(stream); /* one stream: the emulator runs each launch to its end in order */   \
    ::precis::cuda_emulation::launch(#kernel, (grid), (block), [&] { kernel(__VA_ARGS__); }); \
  } while (0)

#else
#error "cuda/*.cu builds with nvcc, or as host C++ in the kernel emulator (PRECIS_CUDA_EMULATION) or the counting backend (PRECIS_CUDA_COUNTING)"
#endif

namespace precis::cuda {

constexpr int kThreads = 256;  // threads per block of the grid-stride kernels

// Blocks of kThreads for a grid-stride loop over n elements: one element per thread up to
// kMaxBlocks blocks, then each thread strides. The emulator runs real threads, so its grids
// stop at 4 blocks: the stride path, which on a GPU only large tensors reach, runs in every
// emulated test.
#if defined(PRECIS_CUDA_EMULATION) && !defined(PRECIS_CUDA_COUNTING)
constexpr int64_t kMaxBlocks = 4;
#else
constexpr int64_t kMaxBlocks = 4096;
#endif
inline unsigned grid_stride_blocks(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return unsigned(blocks < 1 ? 1 : blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

}  // namespace precis::cuda

// The two grids most launchers start, so that each is written once.
// A grid-stride kernel over n elements: grid_stride_blocks(n) blocks of kThreads.
#define PRECIS_LAUNCH_OVER(kernel, n, stream, ...)                   \
  PRECIS_LAUNCH(kernel, dim3{::precis::cuda::grid_stride_blocks(n)}, \
                dim3{::precis::cuda::kThreads}, stream, __VA_ARGS__)
// A row-per-block kernel (block_sum.cuh's kRowThreads a row) over `rows` rows. No rows start
// nothing: CUDA refuses a grid of zero blocks (an invalid launch configuration).
#define PRECIS_LAUNCH_ROWS(kernel, rows, stream, ...)                                        \
  do {                                                                                       \
    if ((rows) > 0)                                                                          \
      PRECIS_LAUNCH(kernel, dim3{unsigned(rows)}, dim3{::precis::cuda::kRowThreads}, stream, \
                    __VA_ARGS__);                                                            \
  } while (0)
