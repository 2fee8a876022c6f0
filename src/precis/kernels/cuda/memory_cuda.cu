// Device memory and copies for the CUDA backend: one allocator per GPU (an arena takes one
// block from it, so nothing is allocated inside a step), and copies in stream order.
#include <memory>
#include <string>
#include <mutex>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

class DeviceAllocator final : public Allocator {
 public:
  explicit DeviceAllocator(int device) : device_(device) {}
  // The driver aligns to 256 bytes at least, more than an arena asks (kAlignment).
  void* allocate(size_t bytes, size_t alignment) override {
    check(alignment <= 256, "cuda allocator: alignment " + std::to_string(alignment) + " > 256");
    return device_malloc(device_, bytes ? bytes : 1);
  }
  void deallocate(void* p) override { device_free(device_, p); }
  void zero(void* p, size_t bytes) override { memset_async(p, 0, bytes, current_stream_on(device_)); }
  Device device() const override { return Device::cuda(device_); }

 private:
  // The current stream when it is this GPU's, else the GPU's default stream.
  static Stream current_stream_on(int device) {
    const Stream s = current_stream();
    return s.device == Device::cuda(device) ? s : Stream{Device::cuda(device), nullptr};
  }
  const int device_;
};

Allocator* allocator(int device) {
  static std::mutex mu;
  static std::vector<std::unique_ptr<DeviceAllocator>> per_device;
  std::lock_guard<std::mutex> lock(mu);
  check(device >= 0 && device < 1024, "cuda allocator: device " + std::to_string(device));
  if (per_device.size() <= size_t(device)) per_device.resize(size_t(device) + 1);
  if (!per_device[size_t(device)]) per_device[size_t(device)] = std::make_unique<DeviceAllocator>(device);
  return per_device[size_t(device)].get();
}

void copy(const void* src, void* dst, size_t bytes, bool to_host, Stream stream) {
  copy_async(dst, src, bytes, stream);
  if (to_host) synchronize(stream);
}

void zero(void* x, size_t bytes, Stream stream) { memset_async(x, 0, bytes, stream); }

// One copy per row in stream order (beam search moves a few hundred rows per step; a gather
// kernel with the indices uploaded is the faster path still to come).
void gather_rows(const char* src, const int32_t* rows, char* dst, int64_t dst_rows,
                 size_t src_row_bytes, size_t dst_row_bytes, Stream stream) {
  for (int64_t r = 0; r < dst_rows; ++r)
    copy_async(dst + size_t(r) * dst_row_bytes, src + size_t(rows ? rows[r] : r) * src_row_bytes,
               src_row_bytes, stream);
}

void append_rows(const char* values, char* cache, int64_t rows, size_t row_bytes,
                 size_t cache_row_bytes, size_t offset_bytes, Stream stream) {
  for (int64_t r = 0; r < rows; ++r)
    copy_async(cache + size_t(r) * cache_row_bytes + offset_bytes, values + size_t(r) * row_bytes,
               row_bytes, stream);
}

}  // namespace

void add_memory_twins(Kernels& k) {
  k.allocator = allocator;
  k.copy = copy;
  k.zero = zero;
  k.gather_rows = gather_rows;
  k.append_rows = append_rows;
}

}  // namespace precis::cuda
