#include "precis/core/tensor.h"

namespace precis {

Shape::Shape(std::initializer_list<int64_t> d) {
  check(d.size() <= kMaxRank, "tensor rank " + std::to_string(d.size()) + " exceeds 4");
  for (int64_t v : d) dims[rank++] = v;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= dims[i];
  return n;
}

bool Shape::operator==(const Shape& o) const {
  if (rank != o.rank) return false;
  for (int i = 0; i < rank; ++i)
    if (dims[i] != o.dims[i]) return false;
  return true;
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

float* Tensor::f32() const {
  check(dtype == DType::F32, "expected an F32 tensor, found " + describe());
  return static_cast<float*>(ptr);
}

uint16_t* Tensor::u16() const {
  check(dtype == DType::BF16 || dtype == DType::F16,
        "expected a BF16 or F16 tensor, found " + describe());
  return static_cast<uint16_t*>(ptr);
}

int32_t* Tensor::i32() const {
  check(dtype == DType::I32, "expected an I32 tensor, found " + describe());
  return static_cast<int32_t*>(ptr);
}

Tensor Tensor::view(Shape s) const {
  check(s.numel() == numel(), "cannot view " + describe() + " as " + s.str());
  Tensor t = *this;
  t.shape = s;
  return t;
}

Tensor Tensor::prefix(Shape s) const {
  check(s.numel() <= numel(), "cannot take " + s.str() + " from " + describe());
  Tensor t = *this;
  t.shape = s;
  return t;
}

Tensor Tensor::slice(int64_t begin, int64_t end) const {
  check(rank() >= 1 && 0 <= begin && begin <= end && end <= shape[0],
        "slice [" + std::to_string(begin) + ", " + std::to_string(end) + ") out of " + describe());
  int64_t row = shape[0] ? numel() / shape[0] : 0;
  Tensor t = *this;
  t.shape.dims[0] = end - begin;
  t.ptr = static_cast<char*>(ptr) + size_t(begin * row) * dtype_size(dtype);
  return t;
}

std::string Tensor::describe() const {
  return dtype_name(dtype) + shape.str() + " on " + device.name();
}

}  // namespace precis
