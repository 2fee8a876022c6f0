// The device seam: the execution context, arenas through allocators, ops that dispatch on
// their tensors' device. (Each op on each backend: tests/unit/kernels/.)
#include <gtest/gtest.h>

#include <thread>

#include "precis/core/arena.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/linear.h"
#include "test_support.h"

using namespace precis;
using precis::testing::Buffer;
using precis::testing::error_of;

namespace {

// Records what an Arena asks of its allocator; memory comes from the host.
class RecordingAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes, size_t alignment) override {
    allocated += bytes;
    return host_allocator().allocate(bytes, alignment);
  }
  void deallocate(void* p) override {
    ++freed;
    host_allocator().deallocate(p);
  }
  void zero(void* p, size_t bytes) override {
    zeroed += bytes;
    host_allocator().zero(p, bytes);
  }
  Device device() const override { return Device::cpu(); }
  size_t allocated = 0, zeroed = 0, freed = 0;
};

// A process without a CUDA backend for the scope (the unit tests install the emulated one).
class WithoutCudaBackend {
 public:
  WithoutCudaBackend() : saved_(cuda::installed()) { cuda::install(nullptr); }
  ~WithoutCudaBackend() { cuda::install(saved_); }

 private:
  const cuda::Kernels* saved_;
};

// A tensor that claims to be on a GPU; no op may touch its (host) memory.
Tensor on_gpu(Buffer& b) {
  Tensor t = b.t();
  t.device = Device::cuda(0);
  return t;
}

}  // namespace

TEST(ExecutionContext, ScopesNestAndRestoreAndStayOnTheirThread) {
  EXPECT_EQ(current_device(), Device::cpu());
  {
    ScopedExecutionContext gpu1(Device::cuda(1));
    EXPECT_EQ(current_device(), Device::cuda(1));
    EXPECT_EQ(current_stream().device, Device::cuda(1));
    {
      ScopedExecutionContext host(Device::cpu());
      EXPECT_EQ(current_device(), Device::cpu());
    }
    EXPECT_EQ(current_device(), Device::cuda(1));
    Device seen_by_other_thread = Device::cuda(7);
    std::thread([&] { seen_by_other_thread = current_device(); }).join();
    EXPECT_EQ(seen_by_other_thread, Device::cpu());
  }
  EXPECT_EQ(current_device(), Device::cpu());
  EXPECT_EQ(Device::cuda(3).name(), "cuda:3");
  EXPECT_CONTAINS(
      error_of([] { ScopedExecutionContext c(Device::cuda(0), Stream{Device::cuda(1)}); }),
      "cannot be the current stream of cuda:0");
}

TEST(Arena, AllocatesThroughItsDevicesAllocator) {
  RecordingAllocator recording;
  {
    Arena arena(1000, recording);
    Tensor z = arena.zeros({3, 5});
    EXPECT_EQ(recording.allocated, 1000u);
    EXPECT_EQ(recording.zeroed, Arena::kAlignment);  // 60 bytes and the padding up to the next tensor
    EXPECT_EQ(z.device, Device::cpu());
    EXPECT_EQ(z.f32()[14], 0.0f);
  }
  EXPECT_EQ(recording.freed, 1u);
  // Without a device named, an arena allocates on the current device; with no GPU backend,
  // asking for GPU memory is a clear error rather than host memory in disguise.
  WithoutCudaBackend no_cuda;
  ScopedExecutionContext gpu(Device::cuda(0));
  std::string message = error_of([] { Arena a(64); });
  EXPECT_CONTAINS(message, "memory on cuda:0");
  EXPECT_CONTAINS(message, "no backend");
  EXPECT_EQ(Arena(64, Device::cpu()).device(), Device::cpu());
}

TEST(Dispatch, AnOpRunsOnItsTensorsDeviceAndRefusesMixedDevices) {
  WithoutCudaBackend no_cuda;
  Buffer x({2, 3}, 1.0f), w({4, 3}, 0.5f), y({2, 4});
  linear_forward(x.t(), w.t(), Tensor{}, y.t());
  EXPECT_EQ(y.data[7], 1.5f);
  std::string mixed = error_of([&] { linear_forward(x.t(), on_gpu(w), Tensor{}, y.t()); });
  EXPECT_CONTAINS(mixed, "linear: F32[2, 3] on cpu and F32[4, 3] on cuda:0");
  std::string gpu = error_of([&] { linear_forward(on_gpu(x), on_gpu(w), Tensor{}, on_gpu(y)); });
  EXPECT_CONTAINS(gpu, "linear on cuda:0");
  std::string upload = error_of([&] { copy(x.t(), on_gpu(y).prefix({2, 3})); });
  EXPECT_CONTAINS(upload, "copy on cuda:0");
}
