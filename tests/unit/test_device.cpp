// The device seam: the execution context, arenas through allocators, ops that dispatch on
// their tensors' device, and the data-movement ops the decoder's cache is built from.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "precis/core/arena.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/fill.h"
#include "precis/kernels/linear.h"
#include "precis/kernels/token_ids.h"
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
    EXPECT_EQ(recording.zeroed, 64u);  // 60 bytes and the padding up to the next tensor
    EXPECT_EQ(z.device, Device::cpu());
    EXPECT_EQ(z.f32()[14], 0.0f);
  }
  EXPECT_EQ(recording.freed, 1u);
  // Without a device named, an arena allocates on the current device; this build has no GPU
  // backend, so asking for GPU memory is a clear error rather than host memory in disguise.
  ScopedExecutionContext gpu(Device::cuda(0));
  std::string message = error_of([] { Arena a(64); });
  EXPECT_CONTAINS(message, "memory on cuda:0");
  EXPECT_CONTAINS(message, "no backend");
  EXPECT_EQ(Arena(64, Device::cpu()).device(), Device::cpu());
}

TEST(Dispatch, AnOpRunsOnItsTensorsDeviceAndRefusesMixedDevices) {
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

TEST(Copy, GatherRowsReordersBeamsIntoALongerLayout) {
  // src (3 rows, 2 positions, width 2); dst (3 rows, 3 positions): the third position stays.
  Buffer src({3, 2, 2}), dst({3, 3, 2}, -1.0f);
  for (size_t i = 0; i < src.data.size(); ++i) src.data[i] = float(i);
  std::vector<int32_t> rows{2, 0, 0};
  gather_rows(src.t(), rows, dst.t());
  EXPECT_EQ(dst.data,
            (std::vector<float>{8, 9, 10, 11, -1, -1, 0, 1, 2, 3, -1, -1, 0, 1, 2, 3, -1, -1}));
  gather_rows(src.t(), {}, dst.t());  // identity
  EXPECT_EQ(dst.data[6], 4.0f);
  std::vector<int32_t> bad{0, 3, 1};
  EXPECT_CONTAINS(error_of([&] { gather_rows(src.t(), bad, dst.t()); }), "source row 3");
}

TEST(Copy, AppendRowsWritesOnePositionOfEveryRow) {
  Buffer cache({2, 3, 2}), values({2, 2});
  values.data = {1, 2, 3, 4};
  append_rows(values.t(), 1, cache.t());
  EXPECT_EQ(cache.data, (std::vector<float>{0, 0, 1, 2, 0, 0, 0, 0, 3, 4, 0, 0}));
  EXPECT_THROW(append_rows(values.t(), 3, cache.t()), Error);
}

TEST(Fill, NormalDrawsDependOnlyOnTheirIndex) {
  Buffer whole({64}), tail({64}, 7.0f);
  fill_normal(whole.t(), 0.02, 42, 5);
  fill_normal(tail.t(), 0.02, 42, 5, 40);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(tail.data[size_t(i)], 7.0f);
  for (int i = 40; i < 64; ++i) EXPECT_EQ(tail.data[size_t(i)], whole.data[size_t(i)]);
  double sum_sq = 0;
  for (float v : whole.data) sum_sq += double(v) * v;
  EXPECT_NEAR(std::sqrt(sum_sq / 64), 0.02, 0.006);
  fill(whole.t(), 2.5f);
  EXPECT_EQ(whole.data[63], 2.5f);
  zero(whole.t().slice(0, 10));
  EXPECT_EQ(whole.data[9], 0.0f);
  EXPECT_EQ(whole.data[10], 2.5f);
}

TEST(TokenIds, TheFirstInvalidIdIsReportedByValue) {
  std::vector<int32_t> ids{3, -100, 5, 9, -1};
  Tensor t{ids.data(), Shape{5}, DType::I32, Device::cpu()};
  InvalidId any = first_invalid_id(t, 9);
  EXPECT_EQ(any.index, 1);
  EXPECT_EQ(any.id, -100);
  InvalidId labels = first_invalid_id(t, 9, kIgnoreIndex);
  EXPECT_EQ(labels.index, 3);
  EXPECT_EQ(labels.id, 9);
  EXPECT_EQ(first_invalid_id(t.slice(0, 3), 9, kIgnoreIndex).index, -1);
  Buffer table({9, 2}), out({5, 2});
  std::string message = error_of([&] { embedding_forward(t, table.t(), 1.0f, out.t()); });
  EXPECT_CONTAINS(message, "token id -100 is outside the embedding table of 9 rows");
}
