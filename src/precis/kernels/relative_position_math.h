// T5's relative position bucket (kernels/relative_position.h), shared by the CPU
// (relative_position_bucket) and the CUDA kernels (cuda/relative_position_kernels.cuh), so both
// take the same float steps: a distance near a bucket's edge lands in the same bucket.
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"

namespace precis::relative_position_math {

// The bucket of relative_position = key − query, as _relative_position_bucket in modeling_t5
// (the logarithmic part computed in float32 and truncated toward zero, as torch does).
PRECIS_HOST_DEVICE inline int64_t bucket(int64_t relative_position, bool bidirectional,
                                         int64_t num_buckets, int64_t max_distance) {
  int64_t buckets = num_buckets, offset = 0, n;
  if (bidirectional) {
    buckets /= 2;
    if (relative_position > 0) offset = buckets;
    n = relative_position < 0 ? -relative_position : relative_position;
  } else {
    n = -relative_position > 0 ? -relative_position : 0;  // future keys: 0 (masked anyway)
  }
  const int64_t max_exact = buckets / 2;
  if (n < max_exact) return offset + n;
  // torch: log(n.float() / max_exact) / math.log(max_distance / max_exact) * (buckets -
  // max_exact), each step in float32, then .to(long) (toward zero).
  float ratio = std::log(float(n) / float(max_exact));
  ratio = ratio / float(std::log(double(max_distance) / double(max_exact)));
  ratio = ratio * float(buckets - max_exact);
  const int64_t large = max_exact + int64_t(ratio);
  return offset + (buckets - 1 < large ? buckets - 1 : large);
}

}  // namespace precis::relative_position_math
