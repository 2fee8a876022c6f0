#include "precis/kernels/copy.h"

#include <string>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

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
  CudaOp{"copy", gpu}.run(&DeviceRuntime::copy, src.ptr, dst.ptr, src.nbytes(),
                          dst.device.is_cpu());
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
  const size_t element = dtype_size(src.dtype);
  const auto* from = static_cast<const char*>(src.ptr);
  const int32_t* order = rows.empty() ? nullptr : rows.data();
  auto* to = static_cast<char*>(dst.ptr);
  const size_t src_row = size_t(src.size(1) * src.size(2)) * element;
  const size_t dst_row = size_t(dst.size(1) * dst.size(2)) * element;
  dispatch_op(
      "gather_rows", {&src, &dst},
      [&] { cpu::gather_rows(from, order, to, dst.size(0), src_row, dst_row); },
      [&](const CudaOp& gpu) {
        gpu.run(&cuda::Kernels::gather_rows, from, order, to, dst.size(0), src_row, dst_row);
      });
}

void append_rows(const Tensor& values, int64_t position, const Tensor& cache) {
  check(cache.rank() == 3 && values.rank() == 2 && values.dtype == cache.dtype &&
            values.size(0) == cache.size(0) && values.size(1) == cache.size(2) && position >= 0 &&
            position < cache.size(1),
        "append_rows: " + values.describe() + " at position " + std::to_string(position) + " of " +
            cache.describe());
  const size_t row = size_t(values.size(1)) * dtype_size(values.dtype);
  const auto* from = static_cast<const char*>(values.ptr);
  auto* to = static_cast<char*>(cache.ptr);
  const size_t stride = size_t(cache.size(1)) * row, offset = size_t(position) * row;
  dispatch_op(
      "append_rows", {&values, &cache},
      [&] { cpu::append_rows(from, to, cache.size(0), row, stride, offset); },
      [&](const CudaOp& gpu) {
        gpu.run(&cuda::Kernels::append_rows, from, to, cache.size(0), row, stride, offset);
      });
}

}  // namespace precis
