#include "precis/kernels/fill.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

void zero(const Tensor& x) {
  OpTimer op_timer("zero");
  const Device d = op_device("zero", {&x});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::zero(x.ptr, x.nbytes());
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::zero, "zero", d)(x.ptr, x.nbytes(), op_stream(d));
  }
  no_backend("zero", d);
}

void fill(const Tensor& x, float value) {
  OpTimer op_timer("fill");
  const Device d = op_device("fill", {&x});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::fill(x.f32(), x.numel(), value);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::fill, "fill", d)(x.f32(), x.numel(), value, op_stream(d));
  }
  no_backend("fill", d);
}

void fill_normal(const Tensor& x, double std, uint64_t seed, uint64_t stream, int64_t first) {
  check(first >= 0 && first <= x.numel(),
        "fill_normal: first element " + std::to_string(first) + " outside " + x.describe());
  OpTimer op_timer("fill_normal");
  const Device d = op_device("fill_normal", {&x});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::fill_normal(x.f32(), first, x.numel(), std, seed, stream);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::fill_normal, "fill_normal", d)(x.f32(), first, x.numel(), std, seed, stream, op_stream(d));
  }
  no_backend("fill_normal", d);
}

}  // namespace precis
