#include "precis/kernels/optimizer.h"

#include <cmath>
#include <string>

#include "precis/kernels/convert.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/fill.h"
#include "precis/kernels/op_dispatch.h"
#include "precis/kernels/optimizer_math.h"

namespace precis {

namespace {

// The scalars torch forms from Python floats (double), each rounded to float once where it
// meets a float tensor.
AdamWScalars adamw_scalars(double lr, double beta1, double beta2, double eps, double weight_decay,
                           int64_t step) {
  check(step >= 1, "adamw: step " + std::to_string(step) + " (steps count from 1)");
  double bias_correction1 = 1.0 - std::pow(beta1, double(step));
  double bias_correction2 = 1.0 - std::pow(beta2, double(step));
  double step_size = lr / bias_correction1;
  return {float(1.0 - lr * weight_decay),
          float(beta1),
          float(1.0 - beta1),
          float(beta2),
          float(1.0 - beta2),
          float(-step_size),
          float(std::sqrt(bias_correction2)),
          float(eps)};
}

void check_same_count(const Tensor& params, const Tensor& grads, const Tensor& exp_avg,
                      const Tensor& exp_avg_sq) {
  int64_t n = params.numel();
  check(grads.numel() == n && exp_avg.numel() == n && exp_avg_sq.numel() == n,
        "adamw: params " + params.describe() + ", grads " + grads.describe() + ", exp_avg " +
            exp_avg.describe() + ", exp_avg_sq " + exp_avg_sq.describe());
}

}  // namespace

void adamw_update(const Tensor& params, const Tensor& grads, const Tensor& exp_avg,
                  const Tensor& exp_avg_sq, double lr, double beta1, double beta2, double eps,
                  double weight_decay, int64_t step) {
  check_same_count(params, grads, exp_avg, exp_avg_sq);
  const AdamWScalars scalars = adamw_scalars(lr, beta1, beta2, eps, weight_decay, step);
  return dispatch_op(
      "adamw", {&params, &grads, &exp_avg, &exp_avg_sq},
      [&] {
        return cpu::adamw_update(params.f32(), grads.f32(), exp_avg.f32(), exp_avg_sq.f32(),
                                 params.numel(), scalars);
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::adamw_update, params.f32(), grads.f32(), exp_avg.f32(),
                       exp_avg_sq.f32(), nullptr, params.numel(), scalars);
      });
}

void adamw_update_masked(const Tensor& params, const Tensor& grads, const Tensor& exp_avg,
                         const Tensor& exp_avg_sq, const Tensor& decay_mask, double lr,
                         double beta1, double beta2, double eps, double weight_decay, int64_t step,
                         const GradientRead& read) {
  check_same_count(params, grads, exp_avg, exp_avg_sq);
  const int64_t n = params.numel();
  check(decay_mask.numel() == (n + 31) / 32,
        "adamw: decay mask " + decay_mask.describe() + " for " + std::to_string(n) + " elements (" +
            std::to_string((n + 31) / 32) + " words expected)");
  AdamWScalars scalars = adamw_scalars(lr, beta1, beta2, eps, weight_decay, step);
  scalars.grad_scale = read.clip_scale;
  const bool clip_from_norm = read.norm_squared.ptr != nullptr;
  if (clip_from_norm) {
    check(read.norm_squared.numel() == 1 && read.norm_squared.dtype == DType::F64,
          "adamw: norm_squared " + read.norm_squared.describe() + " (one F64)");
    scalars.clip = {read.norm_squared.data<double>(), read.max_norm, read.skip_if_not_finite};
  }
  const Tensor& copy = read.compute_copy;
  if (copy.ptr) {
    check(is_16_bit(copy.dtype) && copy.numel() == n,
          "adamw: compute copy " + copy.describe() + " for " + std::to_string(n) +
              " parameters (BF16 or F16, one element each)");
    scalars.copy16 = copy.u16();
    scalars.copy_bf16 = copy.dtype == DType::BF16;
  }
  const auto* mask = reinterpret_cast<const uint32_t*>(decay_mask.i32());
  dispatch_op(
      "adamw", {&params, &grads, &exp_avg, &exp_avg_sq, &decay_mask, &read.norm_squared, &copy},
      [&] {
        if (clip_from_norm) {  // on the host: the kernel's own rule, before the loop
          const double norm = std::sqrt(*scalars.clip.norm_squared);
          scalars.clip = {};
          if (read.skip_if_not_finite && !std::isfinite(norm)) {
            if (read.zero_after) zero(grads);
            return;
          }
          scalars.grad_scale = optimizer_math::clip_coefficient(norm, read.max_norm);
        }
        scalars.copy16 = nullptr;
        cpu::adamw_update_masked(params.f32(), grads.f32(), exp_avg.f32(), exp_avg_sq.f32(), mask,
                                 n, scalars, read.zero_after);
        if (copy.ptr) convert(params, copy);  // the CPU's mixed precision has no copy: a pass
      },
      [&](const CudaOp& gpu) {
        gpu.run(&cuda::Kernels::adamw_update, params.f32(), grads.f32(), exp_avg.f32(),
                exp_avg_sq.f32(), mask, n, scalars);
        if (read.zero_after)
          zero(grads);  // on the GPU the update is not memory-bound enough to fuse
      });
}

}  // namespace precis
