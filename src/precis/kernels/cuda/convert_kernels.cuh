// The CUDA twin's kernels of convert (kernels/convert.h): one thread per element in a
// grid-stride loop, each element convert_math.h's conversion, so the 16-bit words and the
// widened floats are the CPU's bits.
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/convert_math.h"

namespace precis::cuda {

// dst = src rounded to bf16 (bf16) or fp16, to nearest even.
PRECIS_KERNEL void convert_to_16_kernel(const float* src, uint16_t* dst, int64_t n, bool bf16) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = bf16 ? convert_math::to_bf16(src[i]) : convert_math::to_f16(src[i]);
}

// dst = src widened to fp32, exactly.
PRECIS_KERNEL void convert_from_16_kernel(const uint16_t* src, float* dst, int64_t n, bool bf16) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = bf16 ? convert_math::from_bf16(src[i]) : convert_math::from_f16(src[i]);
}

}  // namespace precis::cuda
