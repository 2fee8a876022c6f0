#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/token_ids_math.h"

namespace precis::cpu {

int64_t first_invalid_id(const int32_t* ids, int64_t n, int64_t limit, bool has_allowed,
                         int32_t allowed) {
  for (int64_t i = 0; i < n; ++i)
    if (token_ids_math::is_invalid_id(ids[i], limit, has_allowed, allowed)) return i;
  return -1;
}

}  // namespace precis::cpu
