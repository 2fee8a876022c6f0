// The dispatch of an op's front-end in one call: each op.cpp checks its arguments, then hands
// its CPU and CUDA branches to dispatch_op, which times the op (op_profile.h), finds the device
// of its tensors (dispatch.h) and runs the branch of that device's kind.
#pragma once

#include <initializer_list>
#include <utility>

#include "precis/core/device_runtime.h"
#include "precis/core/tensor.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

// The op's name in errors and in the profile, and its FLOP count where the profile reports a
// rate (0: time only).
struct OpName {
  OpName(const char* name, double flop = 0.0) : name(name), flop(flop) {}  // NOLINT: implicit
  const char* name;
  double flop;
};

// What the CUDA branch is handed: run(&cuda::Kernels::member, args...) calls the member's twin
// (no_backend when this build has none) with the op's stream after the arguments;
// run(&DeviceRuntime::member, args...) the same of the device's runtime (copies, zeroing).
class CudaOp {
 public:
  CudaOp(const char* op, Device device) : op_(op), device_(device) {}

  template <class F, class... Args>
  decltype(auto) run(F cuda::Kernels::*member, Args&&... args) const {
    return cuda::twin(member, op_, device_)(std::forward<Args>(args)..., op_stream(device_));
  }
  template <class F, class... Args>
  decltype(auto) run(F DeviceRuntime::*member, Args&&... args) const {
    const DeviceRuntime* runtime = device_runtime(device_.kind);
    if (runtime == nullptr || runtime->*member == nullptr) no_backend(op_, device_);
    return (runtime->*member)(std::forward<Args>(args)..., op_stream(device_));
  }

 private:
  const char* op_;
  Device device_;
};

// on_cpu() on the host, on_cuda(CudaOp) on a GPU; both return what the op returns.
template <class OnCpu, class OnCuda>
decltype(auto) dispatch_op(OpName op, std::initializer_list<const Tensor*> tensors, OnCpu&& on_cpu,
                           OnCuda&& on_cuda) {
  OpTimer op_timer(op.name, op.flop);
  const Device d = op_device(op.name, tensors);
  switch (d.kind) {
    case DeviceKind::CPU:
      return on_cpu();
    case DeviceKind::CUDA:
      return on_cuda(CudaOp{op.name, d});
  }
  no_backend(op.name, d);
}

}  // namespace precis
