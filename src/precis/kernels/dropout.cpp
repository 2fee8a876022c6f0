#include "precis/kernels/dropout.h"

#include <string>

#include "precis/kernels/copy.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

namespace {

void apply_dropout(const Tensor& x, const DropoutSpec& d, const Tensor& y, const char* what) {
  check(x.numel() == y.numel() && x.dtype == y.dtype,
        std::string(what) + ": " + x.describe() + " -> " + y.describe());
  check(d.p >= 0 && d.p <= 1,
        std::string(what) + ": probability " + std::to_string(d.p) + " is outside [0, 1]");
  if (!d.active()) {
    copy(x, y);
    return;
  }
  float scale = d.p >= 1 ? 0.0f : 1.0f / float(1.0 - double(d.p));
  const uint64_t first = d.rows ? d.first_row * (uint64_t(x.numel()) / d.rows) : 0;
  OpTimer op_timer(what);
  const Device device = op_device(what, {&x, &y});
  switch (device.kind) {
    case DeviceKind::CPU:
      return cpu::dropout(x.f32(), y.f32(), x.numel(), dropout_threshold(d.p), scale, d.seed,
                          d.stream, first);
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::dropout, what, device)(
          x.dtype, x.ptr, y.ptr, x.numel(), dropout_threshold(d.p), scale, d.seed, d.stream, first,
          op_stream(device));
  }
  no_backend(what, device);
}

}  // namespace

void dropout_forward(const Tensor& x, const DropoutSpec& d, const Tensor& y) {
  apply_dropout(x, d, y, "dropout");
}

void dropout_backward(const Tensor& dy, const DropoutSpec& d, const Tensor& dx) {
  // y = x·keep/(1-p)  =>  dx = dy·keep/(1-p): the forward applied to dy with the same mask.
  apply_dropout(dy, d, dx, "dropout backward");
}

}  // namespace precis
