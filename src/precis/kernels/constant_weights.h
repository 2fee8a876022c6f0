// Weights that hold still: while a ConstantWeightsScope lives on a thread, the CPU's
// linear_forward on that thread may keep, for each weight it is given from inside the scope's
// memory, a copy laid out for its kernel (kernels/cpu/linear_packed.h), made on first use and
// used on every later call: a decoding step multiplies its few rows by the same weights every
// step, and packing them on every call (OpenBLAS's sgemm does) cost as much as the products of
// a small model. generate() opens one over its model's parameters for its whole run, in which
// nothing writes them; a weight outside the memory (a training copy, a temporary) is never
// kept. Scopes nest; the innermost counts. Device-neutral to its callers: on CUDA it changes
// nothing.
#pragma once

#include <cstddef>
#include <memory>

namespace precis {

class ConstantWeightsScope {
 public:
  // [base, base + bytes): memory nothing writes while this lives.
  ConstantWeightsScope(const void* base, size_t bytes);
  ~ConstantWeightsScope();
  ConstantWeightsScope(const ConstantWeightsScope&) = delete;
  ConstantWeightsScope& operator=(const ConstantWeightsScope&) = delete;

  struct Packs;  // the copies made so far (kernels/cpu/linear_packed.cpp)
  // The innermost scope's copies on this thread; null when none is open.
  static Packs* innermost();

 private:
  std::unique_ptr<Packs> packs_;
  ConstantWeightsScope* outer_;
};

}  // namespace precis
