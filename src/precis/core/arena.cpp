#include "precis/core/arena.h"

namespace precis {

Arena::Arena(size_t bytes, Allocator& allocator)
    : base_(static_cast<char*>(allocator.allocate(bytes, kAlignment)), detail::ArenaBlockFree{&allocator}),
      capacity_(bytes),
      device_(allocator.device()) {}

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
  // The padding up to the next tensor too: a flat buffer of tensors laid out one after the
  // other (model/common/flat_parameters.h) is reduced, clipped and updated as a whole, gaps
  // included.
  if (t.ptr) base_.get_deleter().allocator->zero(t.ptr, (t.nbytes() + kAlignment - 1) / kAlignment * kAlignment);
  return t;
}

}  // namespace precis
