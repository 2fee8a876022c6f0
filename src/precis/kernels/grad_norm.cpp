#include "precis/kernels/grad_norm.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

double sum_of_squares(const Tensor& x) {
  OpTimer op_timer("sum_of_squares");
  const Device d = op_device("sum_of_squares", {&x});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::sum_of_squares(x.f32(), x.numel());
    case DeviceKind::CUDA:
      return cuda::twin(&cuda::Kernels::sum_of_squares, "sum_of_squares", d)(x.f32(), x.numel(), op_stream(d));
  }
  no_backend("sum_of_squares", d);
}

}  // namespace precis
