// A Tensor is a view: a pointer, a shape (row-major, up to 4 dimensions), a dtype and a
// device. It owns nothing; memory belongs to an Arena (or to whoever made the view).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "precis/core/device.h"
#include "precis/core/dtype.h"
#include "precis/core/error.h"

namespace precis {

struct Shape {
  static constexpr int kMaxRank = 4;
  std::array<int64_t, kMaxRank> dims{};
  int rank = 0;

  Shape() = default;
  Shape(std::initializer_list<int64_t> d);
  int64_t operator[](int i) const { return dims[i < 0 ? rank + i : i]; }
  int64_t numel() const;
  bool operator==(const Shape& o) const;
  std::string str() const;  // "[2, 3]"
};

struct Tensor {
  void* ptr = nullptr;
  Shape shape;
  DType dtype = DType::F32;
  Device device = Device::cpu();  // an arena on another device says so

  int64_t numel() const { return shape.numel(); }
  int64_t size(int i) const { return shape[i]; }
  int rank() const { return shape.rank; }
  size_t nbytes() const { return size_t(numel()) * dtype_size(dtype); }
  bool defined() const { return ptr != nullptr || numel() == 0; }

  template <class T>
  T* data() const { return static_cast<T*>(ptr); }
  float* f32() const;    // checked: dtype must be F32
  uint16_t* u16() const;  // checked: dtype must be BF16 or F16 (the bits, convert_math.h)
  int32_t* i32() const;  // checked: dtype must be I32

  // The same memory seen with another shape of equal element count.
  Tensor view(Shape s) const;
  // The first shape.numel() elements seen with `shape` (scratch buffers sized for the largest use).
  Tensor prefix(Shape s) const;
  // Rows [begin, end) of the first dimension.
  Tensor slice(int64_t begin, int64_t end) const;

  std::string describe() const;  // "F32[2, 3] on cpu", "BF16[8] on cuda:1"
};

}  // namespace precis
