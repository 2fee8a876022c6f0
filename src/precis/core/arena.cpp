#include "precis/core/arena.h"

#include <cstdlib>
#include <cstring>

namespace precis {

void Arena::Free::operator()(char* p) const { std::free(p); }

Arena::Arena(size_t bytes, Device device) : capacity_(bytes), device_(device) {
  check(device == Device::CPU, "arenas on " + device_name(device) + " need the CUDA backend");
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  base_.reset(static_cast<char*>(std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment)));
  check(base_ != nullptr, "out of memory allocating " + std::to_string(bytes) + " bytes");
}

Tensor Arena::alloc(Shape shape, DType dtype) {
  Tensor t;
  t.shape = shape;
  t.dtype = dtype;
  t.device = device_;
  size_t bytes = (t.nbytes() + kAlignment - 1) / kAlignment * kAlignment;
  if (measuring_) {
    used_ += bytes;
    return t;
  }
  check(used_ + bytes <= capacity_, "arena exhausted: asked for " + t.describe() + " with " +
                                        std::to_string(capacity_ - used_) + " bytes left");
  t.ptr = base_.get() + used_;
  used_ += bytes;
  return t;
}

Tensor Arena::zeros(Shape shape, DType dtype) {
  Tensor t = alloc(shape, dtype);
  if (t.ptr) std::memset(t.ptr, 0, t.nbytes());
  return t;
}

}  // namespace precis
