// Device memory and copies for the CUDA backend: one allocator per GPU (an arena takes one
// block from it, so nothing is allocated inside a step), copies in stream order, and the KV
// cache's row moves, one launch each (rows_kernels.cuh).
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/rows_kernels.cuh"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

class DeviceAllocator final : public Allocator {
 public:
  explicit DeviceAllocator(int device) : device_(device) {}
  // The driver aligns to 256 bytes at least, as much as an arena asks (kAlignment).
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

// The largest word (16, 4 or 1 bytes) that divides every address and length of a row move.
int word_bytes(std::initializer_list<uint64_t> values) {
  uint64_t all = 0;
  for (uint64_t v : values) all |= v;
  return all % 16 == 0 ? 16 : all % 4 == 0 ? 4 : 1;
}

template <int W>
void gather_rows_as(const char* src, const int32_t* rows, char* dst, int64_t dst_rows, size_t src_row_bytes,
                    size_t dst_row_bytes, Stream stream) {
  declare_cost({double(dst_rows) * (double(src_row_bytes) + (rows ? sizeof(int32_t) : 0)),
                double(dst_rows) * double(src_row_bytes), 0, 0});
  PRECIS_LAUNCH_OVER(gather_rows_kernel<W>, dst_rows * int64_t(src_row_bytes / W), stream,
                     reinterpret_cast<const Word<W>*>(src), rows, reinterpret_cast<Word<W>*>(dst), dst_rows,
                     int64_t(src_row_bytes / W), int64_t(dst_row_bytes / W));
}

// Beam search's reorder: the host's row indices uploaded once (a copy from pageable memory has
// read them when it returns), then one launch for every row.
void gather_rows(const char* src, const int32_t* rows, char* dst, int64_t dst_rows, size_t src_row_bytes,
                 size_t dst_row_bytes, Stream stream) {
  if (dst_rows == 0 || src_row_bytes == 0) return;
  int32_t* indices = nullptr;
  if (rows) {
    indices = static_cast<int32_t*>(scratch(stream, size_t(dst_rows) * sizeof(int32_t)));
    copy_async(indices, rows, size_t(dst_rows) * sizeof(int32_t), stream);
  }
  switch (word_bytes({uint64_t(reinterpret_cast<uintptr_t>(src)), uint64_t(reinterpret_cast<uintptr_t>(dst)),
                      src_row_bytes, dst_row_bytes})) {
    case 16: return gather_rows_as<16>(src, indices, dst, dst_rows, src_row_bytes, dst_row_bytes, stream);
    case 4: return gather_rows_as<4>(src, indices, dst, dst_rows, src_row_bytes, dst_row_bytes, stream);
    default: return gather_rows_as<1>(src, indices, dst, dst_rows, src_row_bytes, dst_row_bytes, stream);
  }
}

template <int W>
void append_rows_as(const char* values, char* cache, int64_t rows, size_t row_bytes, size_t cache_row_bytes,
                    size_t offset_bytes, Stream stream) {
  declare_cost({double(rows) * double(row_bytes), double(rows) * double(row_bytes), 0, 0});
  PRECIS_LAUNCH_OVER(append_rows_kernel<W>, rows * int64_t(row_bytes / W), stream,
                     reinterpret_cast<const Word<W>*>(values), reinterpret_cast<Word<W>*>(cache), rows,
                     int64_t(row_bytes / W), int64_t(cache_row_bytes / W), int64_t(offset_bytes / W));
}

void append_rows(const char* values, char* cache, int64_t rows, size_t row_bytes, size_t cache_row_bytes,
                 size_t offset_bytes, Stream stream) {
  if (rows == 0 || row_bytes == 0) return;
  switch (word_bytes({uint64_t(reinterpret_cast<uintptr_t>(values)), uint64_t(reinterpret_cast<uintptr_t>(cache)),
                      row_bytes, cache_row_bytes, offset_bytes})) {
    case 16: return append_rows_as<16>(values, cache, rows, row_bytes, cache_row_bytes, offset_bytes, stream);
    case 4: return append_rows_as<4>(values, cache, rows, row_bytes, cache_row_bytes, offset_bytes, stream);
    default: return append_rows_as<1>(values, cache, rows, row_bytes, cache_row_bytes, offset_bytes, stream);
  }
}

}  // namespace

void add_memory_twins(Kernels& k) {
  static const DeviceRuntime runtime{allocator, copy, zero};
  k.runtime = &runtime;
  k.gather_rows = gather_rows;
  k.append_rows = append_rows;
}

}  // namespace precis::cuda
