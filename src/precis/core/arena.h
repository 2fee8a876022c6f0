// An Arena owns one aligned block of memory and hands out tensors from it by bumping an
// offset. Parameters, gradients and activations each live in one arena, so each is one
// flat buffer (which is what bucketed all-reduce and ZeRO-1 want).
//
// The block comes from the allocator of the arena's device (core/allocator.h): the current
// device (core/device.h) unless one is named, so model code allocates where the context says.
//
// Arenas can also measure: an arena made with Arena::measuring() hands out tensors with
// no memory and only counts bytes, so the same allocation code sizes the real arena.
#pragma once

#include <cstddef>
#include <memory>

#include "precis/core/allocator.h"
#include "precis/core/tensor.h"

namespace precis {

namespace detail {
// Returns an arena's block to the allocator it came from.
struct ArenaBlockFree {
  Allocator* allocator = nullptr;
  void operator()(char* p) const { allocator->deallocate(p); }
};
}  // namespace detail

class Arena {
 public:
  // Every tensor starts on a 256-byte boundary: what cuBLASLt's fastest kernels require of their
  // operands (kernels/cuda/blas_cublaslt.cu tells its heuristic the real pointers' alignment), and a
  // multiple of a cache line and of the widest vector loads on either device.
  static constexpr size_t kAlignment = 256;

  Arena() = default;
  explicit Arena(size_t bytes) : Arena(bytes, current_device()) {}
  Arena(size_t bytes, Device device) : Arena(bytes, allocator_for(device)) {}
  Arena(size_t bytes, Allocator& allocator);
  // Measures for the current device, as Arena(bytes) will allocate on it: what a layout
  // holds may depend on the device (attention_reads_in_place, attention_saves_probs).
  static Arena measuring() {
    Arena a;
    a.measuring_ = true;
    a.device_ = current_device();
    return a;
  }
  Arena(Arena&&) noexcept = default;
  Arena& operator=(Arena&&) noexcept = default;

  // A tensor of the arena's element type, or of `dtype`.
  Tensor alloc(Shape shape) { return alloc(shape, element_type_); }
  Tensor alloc(Shape shape, DType dtype);
  // Like alloc, filled with zeros, and so is the padding after it.
  Tensor zeros(Shape shape) { return zeros(shape, element_type_); }
  Tensor zeros(Shape shape, DType dtype);

  // The element type of alloc(shape): F32, or under mixed precision the 16-bit compute type
  // of an activation arena (the model code names F32 where it must stay fp32: statistics,
  // losses, the softmax's log-sum-exp).
  DType element_type() const { return element_type_; }
  void set_element_type(DType t) { element_type_ = t; }

  size_t used() const { return used_; }
  size_t capacity() const { return capacity_; }
  char* base() const { return base_.get(); }
  Device device() const { return device_; }
  // Forget every tensor handed out (their memory is reused by the next allocations).
  void reset() { used_ = 0; }
  // Undo the allocations made since `mark` = used() was read.
  void release_to(size_t mark) { used_ = mark; }

 private:
  std::unique_ptr<char, detail::ArenaBlockFree> base_;
  size_t capacity_ = 0;
  size_t used_ = 0;
  Device device_;
  DType element_type_ = DType::F32;
  bool measuring_ = false;
};

}  // namespace precis
