#include "precis/kernels/cuda/kernels_cuda.h"

#include <atomic>
#include <mutex>

namespace precis::cuda {

namespace {
std::atomic<const Kernels*> installed_kernels{nullptr};
std::atomic<int (*)()> backend_installer{nullptr};
}  // namespace

const Kernels* installed() { return installed_kernels.load(std::memory_order_acquire); }

void install(const Kernels* kernels) {
  install_device_runtime(DeviceKind::CUDA, kernels ? kernels->runtime : nullptr);
  installed_kernels.store(kernels, std::memory_order_release);
}

void set_backend_installer(int (*installer)()) { backend_installer.store(installer); }

int device_count() {
  static std::once_flag once;
  static int count = 0;
  std::call_once(once, [] {
    if (int (*installer)() = backend_installer.load()) count = installer();
  });
  return count;
}

}  // namespace precis::cuda
