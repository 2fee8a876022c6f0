// The CUDA twins' kernel bodies (src/precis/kernels/cuda/*.cuh) run in the kernel emulator
// against the CPU kernels: the fused AdamW bit for bit (the same optimizer_math.h step, no
// contraction on the host), sum_of_squares to the rounding of its other order of additions.
// And the emulator itself: a divergent __syncthreads ends the run with the kernel's name, and so
// does a launch a GPU would refuse.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "emulator/device_memory.h"
#include "emulator/emulator.h"  // first: it defines what the kernel bodies use
#include "emulator/install.h"
#include "precis/core/arena.h"
#include "precis/core/host_device.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/cuda/grad_norm_kernels.cuh"
#include "precis/kernels/cuda/optimizer_kernels.cuh"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/grad_norm.h"
#include "precis/kernels/optimizer.h"
#include "precis/model/common/flat_parameters.h"
#include "weight_bias_weight.h"

using namespace precis;

namespace {

Tensor host_tensor(std::vector<float>& v) {
  return Tensor{v.data(), Shape{int64_t(v.size())}, DType::F32, Device::cpu()};
}

// The scalars adamw_update forms for (lr 1e-3, betas 0.9/0.999, eps 1e-8, wd 0.1, step t).
AdamWScalars scalars_at(int64_t t) {
  const double lr = 1e-3, b1 = 0.9, b2 = 0.999, wd = 0.1;
  return {float(1.0 - lr * wd), float(b1), float(1.0 - b1), float(b2), float(1.0 - b2),
          float(-(lr / (1.0 - std::pow(b1, double(t))))),
          float(std::sqrt(1.0 - std::pow(b2, double(t)))), float(1e-8)};
}

}  // namespace

TEST(EmulatedAdamW, MaskedAndUnmaskedEqualTheCpuKernelBitForBit) {
  // A gap of 7 floats before the bias; 4085 in all.
  const dist::FlatLayout layout = precis::testing::weight_bias_weight(3001, 3008, 77, 1000);
  std::vector<uint32_t> mask = dist::weight_decay_mask(layout, 0, layout.size);
  Tensor mask_tensor{mask.data(), Shape{int64_t(mask.size())}, DType::I32, Device::cpu()};
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t n = size_t(layout.size);
  std::vector<float> p(n), g(n), m(n, 0.0f), v(n, 0.0f);
  for (float& x : p) x = normal(rng);
  for (bool masked : {true, false}) {
    std::vector<float> pc = p, mc = m, vc = v, pe = p, me = m, ve = v;
    for (int64_t t = 1; t <= 3; ++t) {
      for (float& x : g) x = 0.1f * normal(rng);
      if (masked)
        adamw_update_masked(host_tensor(pc), host_tensor(g), host_tensor(mc), host_tensor(vc),
                            mask_tensor, 1e-3, 0.9, 0.999, 1e-8, 0.1, t);
      else
        adamw_update(host_tensor(pc), host_tensor(g), host_tensor(mc), host_tensor(vc), 1e-3, 0.9,
                     0.999, 1e-8, 0.1, t);
      // 3 blocks of 64 threads: the grid-stride loop covers 4085 elements in 22 rounds.
      EMULATE(cuda::adamw_kernel, dim3{3}, dim3{64}, pe.data(), g.data(), me.data(), ve.data(),
              masked ? mask.data() : nullptr, int64_t(n), scalars_at(t));
    }
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(pe[i], pc[i]) << (masked ? "masked " : "") << i;
      ASSERT_EQ(me[i], mc[i]) << i;
      ASSERT_EQ(ve[i], vc[i]) << i;
    }
  }
}

TEST(EmulatedSumOfSquares, BlockPartialsAddUpToTheCpuSum) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::vector<float> x(3 * cuda::kSumChunk + 4321);  // four blocks, the last one ragged
  for (float& e : x) e = u(rng);
  const int64_t n = int64_t(x.size()), blocks = cuda::sum_of_squares_blocks(n);
  std::vector<double> partials(size_t(blocks), -1.0);
  EMULATE(cuda::sum_of_squares_partials, dim3{unsigned(blocks)}, dim3{unsigned(cuda::kSumThreads)},
          x.data(), n, partials.data());
  double total = 0.0;
  for (double s : partials) total += s;
  // The device's own sum of the partials (what the training step's clipping reads) adds them in
  // this very order: the same bits.
  double on_device = -1.0;
  EMULATE(cuda::sum_in_block_order, dim3{1}, dim3{1}, partials.data(), blocks, &on_device);
  EXPECT_EQ(on_device, total);
  // Each square is exact in double; n additions of positive terms err by at most n·2^-53 of
  // the sum (2.3e-11 for these 2e5), whatever their order. The reference sums in long double.
  long double exact = 0.0L;
  for (float e : x) exact += (long double)e * e;
  const double cpu = sum_of_squares(host_tensor(x));
  const double bound = double(n) * 0x1p-53;
  std::printf("  emulated vs long double: %.1e, vs the CPU kernel: %.1e (bound %.1e)\n",
              std::abs(total - double(exact)) / double(exact), std::abs(total - cpu) / cpu, bound);
  EXPECT_NEAR(total, double(exact), bound * double(exact));
  EXPECT_NEAR(total, cpu, 2 * bound * cpu);
  for (int64_t b = 0; b < blocks; ++b) {
    double block = 0.0;
    for (int64_t i = b * cuda::kSumChunk; i < std::min(n, (b + 1) * cuda::kSumChunk); ++i)
      block += double(x[size_t(i)]) * double(x[size_t(i)]);
    EXPECT_NEAR(partials[size_t(b)], block, double(cuda::kSumChunk) * 0x1p-53 * block) << "block " << b;
  }
}

// First to last, whatever rounds: 1 then eight halves of an ulp of 1 stays 1 (each addition
// rounds to even), where the small ones added first would have made 1 + 2^-50.
TEST(EmulatedSumOfSquares, PartialsAddedFirstToLast) {
  std::vector<double> partials(9, 0x1p-53);
  partials[0] = 1.0;
  double total = -1.0;
  EMULATE(cuda::sum_in_block_order, dim3{1}, dim3{1}, partials.data(), int64_t(partials.size()),
          &total);
  EXPECT_EQ(total, 1.0);
}

namespace {

// Thread 0 leaves before the barrier the others wait at.
void divergent_kernel(int* out) {
  if (threadIdx.x == 0) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

}  // namespace

TEST(CudaEmulator, ADivergentSyncthreadsEndsTheRunWithTheKernelsName) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int> out(8, 0);
  EXPECT_DEATH(EMULATE(divergent_kernel, dim3{1}, dim3{8}, out.data()),
               "divergent_kernel: divergent __syncthreads");
}

namespace {

// A warp's sum by butterfly (xor) and by halving (down), over a block of 48 threads: one whole
// warp and one of 16 lanes, whose mask is its 16 lanes.
void warp_sums_kernel(const int* in, int* by_xor, int* by_down) {
  const int t = int(threadIdx.x), lanes = t < 32 ? 32 : int(blockDim.x) - 32;
  const unsigned mask = lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
  int x = in[t], d = in[t];
  for (int offset = lanes / 2; offset > 0; offset /= 2) {
    x += __shfl_xor_sync(mask, x, offset);
    d += __shfl_down_sync(mask, d, unsigned(offset));
  }
  by_xor[t] = x;
  by_down[t] = d;
}

// Lane 3 leaves before the shuffle its warp waits at.
void divergent_shuffle_kernel(int* out) {
  if (threadIdx.x == 3) return;
  out[threadIdx.x] = __shfl_xor_sync(0xFFFFFFFFu, int(threadIdx.x), 1);
}

// Half of warp 0 shuffles while the rest of the block waits at __syncthreads: neither barrier
// can open.
void deadlock_kernel(int* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = __shfl_xor_sync(0xFFFFFFFFu, int(threadIdx.x), 1);
  else __syncthreads();
}

void count_kernel(int64_t* counter, float* total) {
  atomicAdd(counter, int64_t(1));
  atomicAdd(total, 0.5f);
}

}  // namespace

TEST(CudaEmulator, WarpShufflesExchangeWithinEachWarp) {
  std::vector<int> in(48), by_xor(48, -1), by_down(48, -1);
  for (int t = 0; t < 48; ++t) in[size_t(t)] = t * t + 1;
  EMULATE(warp_sums_kernel, dim3{2}, dim3{48}, in.data(), by_xor.data(), by_down.data());
  int first = 0, second = 0;
  for (int t = 0; t < 32; ++t) first += in[size_t(t)];
  for (int t = 32; t < 48; ++t) second += in[size_t(t)];
  for (int t = 0; t < 48; ++t) EXPECT_EQ(by_xor[size_t(t)], t < 32 ? first : second) << "lane " << t;
  // Halving leaves the whole sum in each warp's lane 0 only.
  EXPECT_EQ(by_down[0], first);
  EXPECT_EQ(by_down[32], second);
  EXPECT_NE(by_down[31], first);
}

TEST(CudaEmulator, ADivergentShuffleEndsTheRunWithTheKernelsName) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int> out(32, 0);
  EXPECT_DEATH(EMULATE(divergent_shuffle_kernel, dim3{1}, dim3{32}, out.data()),
               "divergent_shuffle_kernel: divergent warp shuffle");
}

TEST(CudaEmulator, ThreadsWaitingAtBarriersNoneCanOpenEndTheRunAsADeadlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int> out(64, 0);
  EXPECT_DEATH(EMULATE(deadlock_kernel, dim3{1}, dim3{64}, out.data()),
               "deadlock_kernel: deadlock: in block \\(0, 0, 0\\), 48 threads wait at __syncthreads and 16 at warp");
}

TEST(CudaEmulator, AtomicsAddFromEveryThread) {
  int64_t counter = 0;
  float total = 0.0f;
  EMULATE(count_kernel, dim3{3}, dim3{100}, &counter, &total);
  EXPECT_EQ(counter, 300);
  EXPECT_EQ(total, 150.0f);  // halves add exactly in any order
}

// Guarded device memory: ops reach it, the host's own reads and writes stop the run there.
TEST(CudaEmulator, GuardedDeviceMemoryStopsTheHostsOwnReads) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  cuda_emulation::install();
  cuda_emulation::guard_device_memory(true);
  {
    Arena arena(1024, Device::cuda(0));
    Tensor x = arena.alloc({4}, DType::F32);
    std::vector<float> host{1.0f, 2.0f, 3.0f, 4.0f}, back(4);
    copy(Tensor{host.data(), Shape{4}, DType::F32, Device::cpu()}, x);
    scale_in_place(x, 2.0f);
    copy(x, Tensor{back.data(), Shape{4}, DType::F32, Device::cpu()});
    EXPECT_EQ(back, (std::vector<float>{2.0f, 4.0f, 6.0f, 8.0f}));
    EXPECT_DEATH(std::printf("%f\n", double(x.f32()[0])), "");
  }
  cuda_emulation::guard_device_memory(false);
}

namespace {

void mark_kernel(int* out) { out[blockIdx.x] = 1; }

// 32 KiB and 16 KiB + 4 bytes: one float over a block's 48 KiB of static shared memory.
void over_the_shared_limit_kernel(float* out) {
  PRECIS_SHARED(float[8192], first);
  PRECIS_SHARED(float[4097], second);
  first[threadIdx.x] = 1.0f;
  second[threadIdx.x] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = first[threadIdx.x] + second[threadIdx.x];
}

// Exactly 48 KiB, declared in a loop: each variable counts once.
void at_the_shared_limit_kernel(float* out) {
  for (int round = 0; round < 2; ++round) {
    PRECIS_SHARED(float[8192], first);
    PRECIS_SHARED(float[4096], second);
    first[threadIdx.x] = float(round);
    second[threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = first[threadIdx.x] + second[threadIdx.x];
    __syncthreads();
  }
}

}  // namespace

// cudaErrorInvalidConfiguration's cases (sm_80 and sm_90 alike), each refused with the
// kernel's name where a GPU would refuse the launch, and the largest valid launches run.
TEST(CudaEmulator, RefusesTheLaunchesAGpuRefuses) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int> out(4, 0);
  const struct {
    dim3 grid, block;
    const char* why;
  } invalid[] = {
      {{0, 1, 1}, {32, 1, 1}, "a grid of no blocks"},
      {{1, 0, 1}, {32, 1, 1}, "a grid of no blocks"},
      {{1, 1, 0}, {32, 1, 1}, "a grid of no blocks"},
      {{2147483648u, 1, 1}, {32, 1, 1}, "gridDim.x is at most 2\\^31 - 1"},
      {{1, 65536, 1}, {32, 1, 1}, "gridDim.y and gridDim.z are at most 65535"},
      {{1, 1, 65536}, {32, 1, 1}, "gridDim.y and gridDim.z are at most 65535"},
      {{1, 1, 1}, {0, 1, 1}, "a block of no threads"},
      {{1, 1, 1}, {1025, 1, 1}, "blockDim.x and .y are at most 1024"},
      {{1, 1, 1}, {1, 1, 65}, "blockDim.z at most 64"},
      {{1, 1, 1}, {32, 33, 1}, "at most 1024 threads per block"},
  };
  for (const auto& launch : invalid)
    EXPECT_DEATH(EMULATE(mark_kernel, launch.grid, launch.block, out.data()),
                 std::string("mark_kernel: invalid configuration argument: .*") + launch.why)
        << launch.why;
  EMULATE(mark_kernel, (dim3{3, 1, 1}), (dim3{1024, 1, 1}), out.data());
  EMULATE(mark_kernel, (dim3{1, 1, 1}), (dim3{1, 16, 64}), out.data());
  EXPECT_EQ(out, (std::vector<int>{1, 1, 1, 0}));
}

TEST(CudaEmulator, RefusesMoreThan48KiBOfStaticSharedMemory) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<float> out(64, 0.0f);
  EXPECT_DEATH(EMULATE(over_the_shared_limit_kernel, dim3{2}, dim3{64}, out.data()),
               "over_the_shared_limit_kernel: 49156 bytes of static shared memory \\(with second\\)");
  EMULATE(at_the_shared_limit_kernel, dim3{2}, dim3{64}, out.data());
  EXPECT_EQ(out[63], 3.0f);
}
