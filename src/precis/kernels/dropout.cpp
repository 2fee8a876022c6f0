#include "precis/kernels/dropout.h"

#include <string>

#include "precis/kernels/copy.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

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
  const uint64_t threshold = dropout_threshold(d.p);
  dispatch_op(
      what, {&x, &y},
      [&] { cpu::dropout(x.f32(), y.f32(), x.numel(), threshold, scale, d.seed, d.stream, first); },
      [&](const CudaOp& gpu) {
        gpu.run(&cuda::Kernels::dropout, x.dtype, x.ptr, y.ptr, x.numel(), threshold, scale, d.seed,
                d.stream, first);
      });
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
