// An Arena owns one aligned block of memory and hands out tensors from it by bumping an
// offset. Parameters, gradients and activations each live in one arena, so each is one
// flat buffer (which is what bucketed all-reduce and ZeRO-1 want).
//
// Arenas can also measure: an arena made with Arena::measuring() hands out tensors with
// no memory and only counts bytes, so the same allocation code sizes the real arena.
#pragma once

#include <cstddef>
#include <memory>

#include "precis/core/tensor.h"

namespace precis {

class Arena {
 public:
  static constexpr size_t kAlignment = 64;

  Arena() = default;
  Arena(size_t bytes, Device device = Device::CPU);
  static Arena measuring() {
    Arena a;
    a.measuring_ = true;
    return a;
  }
  Arena(Arena&&) noexcept = default;
  Arena& operator=(Arena&&) noexcept = default;

  Tensor alloc(Shape shape, DType dtype = DType::F32);
  // Like alloc, filled with zeros.
  Tensor zeros(Shape shape, DType dtype = DType::F32);

  size_t used() const { return used_; }
  size_t capacity() const { return capacity_; }
  char* base() const { return base_.get(); }
  Device device() const { return device_; }
  // Forget every tensor handed out (their memory is reused by the next allocations).
  void reset() { used_ = 0; }
  // Undo the allocations made since `mark` = used() was read.
  void release_to(size_t mark) { used_ = mark; }

 private:
  struct Free {
    void operator()(char* p) const;
  };
  std::unique_ptr<char, Free> base_;
  size_t capacity_ = 0;
  size_t used_ = 0;
  Device device_ = Device::CPU;
  bool measuring_ = false;
};

}  // namespace precis
