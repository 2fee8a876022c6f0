// cuda/runtime.h in the kernel emulator: "device" memory is host memory (aligned as
// cudaMalloc aligns), copies and fills happen at once (the emulator runs every launch to the
// end before returning, so the stream's order holds), and synchronize has nothing to wait for.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cuda/runtime.h"

namespace precis::cuda {

void* device_malloc(int device, size_t bytes) {
  constexpr size_t kAlign = 256;
  void* p = std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
  check(p != nullptr, "emulated cudaMalloc of " + std::to_string(bytes) + " bytes on cuda:" +
                          std::to_string(device));
  return p;
}

void device_free(int, void* p) { std::free(p); }

void copy_async(void* dst, const void* src, size_t bytes, Stream) {
  if (bytes) std::memmove(dst, src, bytes);
}

void memset_async(void* p, int value, size_t bytes, Stream) {
  if (bytes) std::memset(p, value, bytes);
}

void synchronize(Stream) {}

void* scratch(Stream s, size_t bytes) {
  static std::mutex mu;
  static std::vector<std::vector<unsigned char>> per_device;
  std::lock_guard<std::mutex> lock(mu);
  const size_t d = size_t(s.device.index);
  if (per_device.size() <= d) per_device.resize(d + 1);
  if (per_device[d].size() < bytes) per_device[d].resize(bytes);
  return per_device[d].data();
}

}  // namespace precis::cuda
