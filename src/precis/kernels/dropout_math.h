// One element of inverted dropout, shared by the CPU loop (cpu/dropout_cpu.cpp) and the CUDA
// kernel: kept iff its Philox bits (core/philox.h) are at least the threshold (dropout.h).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"

namespace precis::dropout_math {

PRECIS_HOST_DEVICE inline float apply(float x, uint32_t bits, uint64_t threshold, float scale) {
  return bits >= threshold ? x * scale : 0.0f;
}

}  // namespace precis::dropout_math
