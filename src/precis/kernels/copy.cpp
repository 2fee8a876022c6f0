#include "precis/kernels/copy.h"

#include <cstring>

namespace precis {

void copy(const Tensor& src, const Tensor& dst) {
  check(src.numel() == dst.numel() && src.dtype == dst.dtype,
        "copy: " + src.describe() + " -> " + dst.describe());
  check(src.device == Device::CPU && dst.device == Device::CPU, "copy: only CPU tensors here");
  if (src.ptr != dst.ptr) std::memcpy(dst.ptr, src.ptr, src.nbytes());
}

void zero(const Tensor& x) {
  check(x.device == Device::CPU, "zero: only CPU tensors here");
  std::memset(x.ptr, 0, x.nbytes());
}

}  // namespace precis
