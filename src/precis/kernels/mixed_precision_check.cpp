#include "precis/kernels/mixed_precision_check.h"

#include <string>

namespace precis {

namespace {

// "a", "a and b", "a, b and c".
std::string listed(std::initializer_list<NamedOperand> tensors) {
  std::string out;
  size_t i = 0;
  for (const NamedOperand& t : tensors) {
    if (i > 0) out += i + 1 == tensors.size() ? " and " : ", ";
    out += t.name;
    ++i;
  }
  return out;
}

}  // namespace

void check_mixed_precision(const char* op, std::initializer_list<NamedOperand> same,
                           std::initializer_list<NamedOperand> f32) {
  const DType first = same.begin()->tensor.dtype;
  bool ok = true;
  for (const NamedOperand& t : same) ok = ok && (!t.tensor.ptr || t.tensor.dtype == first);
  for (const NamedOperand& t : f32) ok = ok && (!t.tensor.ptr || t.tensor.dtype == DType::F32);
  if (ok) return;
  std::string message =
      std::string(op) + ": " + listed(same) + " of one dtype, " + listed(f32) + " F32:";
  const char* separator = " ";
  for (const auto* group : {&same, &f32})
    for (const NamedOperand& t : *group) {
      message += separator + std::string(t.name) + " " + t.tensor.describe();
      separator = ", ";
    }
  throw Error(message);
}

}  // namespace precis
