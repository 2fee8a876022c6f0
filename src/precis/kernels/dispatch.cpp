#include "precis/kernels/dispatch.h"

#include <string>

#include "precis/core/allocator.h"

namespace precis {

Device op_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (t->ptr == nullptr) continue;
    if (first == nullptr) {
      first = t;
    } else if (!(t->device == first->device)) {
      throw Error(std::string(op) + ": " + first->describe() + " and " + t->describe() +
                  ": an op's tensors must be on one device (copy them first)");
    }
  }
  return first ? first->device : current_device();
}

Stream op_stream(Device d) {
  const Stream s = current_stream();
  return s.device == d ? s : Stream{d, nullptr};
}

void no_backend(const char* op, Device device) { throw Error(no_backend_message(op, device)); }

}  // namespace precis
