#include "precis/kernels/copy.h"

#include <string>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

void copy(const Tensor& src, const Tensor& dst) {
  check(src.numel() == dst.numel() && src.dtype == dst.dtype,
        "copy: " + src.describe() + " -> " + dst.describe());
  if (src.ptr == dst.ptr || src.numel() == 0) return;
  // A copy is the one op whose tensors may be on two devices.
  if (src.device.is_cpu() && dst.device.is_cpu()) return cpu::copy(src.ptr, dst.ptr, src.nbytes());
  // Host <-> GPU and GPU <-> GPU: in the order of the GPU side's stream (the source's when
  // both are GPUs); a copy to the host returns once the host holds the data.
  const Device gpu = src.device.is_cpu() ? dst.device : src.device;
  return cuda::twin(&cuda::Kernels::copy, "copy", gpu)(src.ptr, dst.ptr, src.nbytes(),
                                                       dst.device.is_cpu(), op_stream(gpu));
}

void gather_rows(const Tensor& src, std::span<const int32_t> rows, const Tensor& dst) {
  check(src.rank() == 3 && dst.rank() == 3 && src.dtype == dst.dtype &&
            src.size(2) == dst.size(2) && dst.size(1) >= src.size(1) &&
            (rows.empty() ? dst.size(0) == src.size(0) : int64_t(rows.size()) == dst.size(0)),
        "gather_rows: " + src.describe() + " -> " + dst.describe() + " with " +
            std::to_string(rows.size()) + " row indices");
  for (int32_t r : rows)
    check(r >= 0 && r < src.size(0),
          "gather_rows: source row " + std::to_string(r) + " outside " + src.describe());
  OpTimer op_timer("gather_rows");
  const Device d = op_device("gather_rows", {&src, &dst});
  const size_t element = dtype_size(src.dtype);
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::gather_rows(static_cast<const char*>(src.ptr),
                              rows.empty() ? nullptr : rows.data(), static_cast<char*>(dst.ptr),
                              dst.size(0), size_t(src.size(1) * src.size(2)) * element,
                              size_t(dst.size(1) * dst.size(2)) * element);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::gather_rows, "gather_rows", d)(static_cast<const char*>(src.ptr), rows.empty() ? nullptr : rows.data(),
          static_cast<char*>(dst.ptr), dst.size(0), size_t(src.size(1) * src.size(2)) * element,
          size_t(dst.size(1) * dst.size(2)) * element, op_stream(d));
  }
  no_backend("gather_rows", d);
}

void append_rows(const Tensor& values, int64_t position, const Tensor& cache) {
  check(cache.rank() == 3 && values.rank() == 2 && values.dtype == cache.dtype &&
            values.size(0) == cache.size(0) && values.size(1) == cache.size(2) && position >= 0 &&
            position < cache.size(1),
        "append_rows: " + values.describe() + " at position " + std::to_string(position) + " of " +
            cache.describe());
  OpTimer op_timer("append_rows");
  const Device d = op_device("append_rows", {&values, &cache});
  const size_t element = dtype_size(values.dtype);
  const size_t row = size_t(values.size(1)) * element;
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::append_rows(static_cast<const char*>(values.ptr), static_cast<char*>(cache.ptr),
                              cache.size(0), row, size_t(cache.size(1)) * row,
                              size_t(position) * row);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::append_rows, "append_rows", d)(static_cast<const char*>(values.ptr), static_cast<char*>(cache.ptr), cache.size(0),
          row, size_t(cache.size(1)) * row, size_t(position) * row, op_stream(d));
  }
  no_backend("append_rows", d);
}

}  // namespace precis
