// The CUDA twin's kernels of convert (kernels/convert.h): one thread per element in a
// grid-stride loop, each element convert_math.h's conversion, so the 16-bit words and the
// widened floats are the CPU's bits.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/convert_math.h"
#include "precis/kernels/cuda/grid_stride.cuh"

namespace precis::cuda {

// dst = src rounded to bf16 (bf16) or fp16, to nearest even.
PRECIS_KERNEL void convert_to_16_kernel(const float* src, uint16_t* dst, int64_t n, bool bf16) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    dst[i] = bf16 ? convert_math::to_bf16(src[i]) : convert_math::to_f16(src[i]);
}

// dst = src widened to fp32, exactly.
PRECIS_KERNEL void convert_from_16_kernel(const uint16_t* src, float* dst, int64_t n, bool bf16) {
  for (int64_t i = grid_thread(), stride = grid_threads(); i < n; i += stride)
    dst[i] = bf16 ? convert_math::from_bf16(src[i]) : convert_math::from_f16(src[i]);
}

}  // namespace precis::cuda
