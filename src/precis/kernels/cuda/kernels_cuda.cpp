#include "precis/kernels/cuda/kernels_cuda.h"

#include <atomic>

namespace precis::cuda {

namespace {
std::atomic<const Kernels*> installed_kernels{nullptr};
}  // namespace

const Kernels* installed() { return installed_kernels.load(std::memory_order_acquire); }

void install(const Kernels* kernels) { installed_kernels.store(kernels, std::memory_order_release); }

}  // namespace precis::cuda
