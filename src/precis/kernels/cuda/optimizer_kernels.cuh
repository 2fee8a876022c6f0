// The CUDA twin's kernels of the fused AdamW (kernels/optimizer.h): one thread per element in a
// grid-stride loop, each running optimizer_math.h's step, so with --fmad=false the result is
// the CPU's bit for bit. Included by the CUDA backend and by the kernel emulator's tests
// (tests/emulator/), which run these very bodies on the host.
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/convert_math.h"
#include "precis/kernels/cuda/grid_stride.cuh"
#include "precis/kernels/optimizer_math.h"

namespace precis::cuda {

// Over n elements of a flat buffer; decay_mask null: every element decays with s.decay_factor
// (adamw_update), else bit i decides (adamw_update_masked).
// With s.clip set, every thread forms the clipping scale from the norm the gradient's
// reduction left on the device (the same double math as the host's, so the same float); with
// s.copy16, each updated parameter is also written rounded to 16 bits (convert's bits).
PRECIS_KERNEL void adamw_kernel(float* params, const float* grads, float* exp_avg, float* exp_avg_sq,
                                const uint32_t* decay_mask, int64_t n, AdamWScalars s) {
  if (s.clip.norm_squared) {
    const double norm = std::sqrt(*s.clip.norm_squared);
    if (s.clip.skip_if_not_finite && !std::isfinite(norm)) return;
    s.grad_scale = optimizer_math::clip_coefficient(norm, s.clip.max_norm);
  }
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride) {
    const float decay_factor =
        !decay_mask || optimizer_math::decays(decay_mask, i) ? s.decay_factor : 1.0f;
    optimizer_math::adamw_step(params[i], grads[i], exp_avg[i], exp_avg_sq[i], s, decay_factor);
    if (s.copy16)
      s.copy16[i] =
          s.copy_bf16 ? convert_math::to_bf16(params[i]) : convert_math::to_f16(params[i]);
  }
}

}  // namespace precis::cuda
