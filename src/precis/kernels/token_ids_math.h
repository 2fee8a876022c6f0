// Which token ids are invalid (kernels/token_ids.h), shared by the CPU scan
// (cpu/token_ids_cpu.cpp) and the CUDA kernel (cuda/token_ids_kernels.cuh).
#pragma once

#include <cstdint>

#include "precis/core/host_device.h"

namespace precis::token_ids_math {

// Outside the table [0, limit), unless it is `allowed` (labels' ignore index, when has_allowed).
PRECIS_HOST_DEVICE inline bool is_invalid_id(int32_t id, int64_t limit, bool has_allowed,
                                             int32_t allowed) {
  return (id < 0 || id >= limit) && !(has_allowed && id == allowed);
}

}  // namespace precis::token_ids_math
