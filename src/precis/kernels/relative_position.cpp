#include "precis/kernels/relative_position.h"

#include <algorithm>
#include <cmath>

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/dispatch.h"

namespace precis {

int64_t relative_position_bucket(int64_t relative_position, const RelativePositionBuckets& b) {
  int64_t buckets = b.num_buckets, offset = 0, n;
  if (b.bidirectional) {
    buckets /= 2;
    if (relative_position > 0) offset = buckets;
    n = relative_position < 0 ? -relative_position : relative_position;
  } else {
    n = std::max<int64_t>(-relative_position, 0);  // future keys: 0 (masked anyway)
  }
  const int64_t max_exact = buckets / 2;
  if (n < max_exact) return offset + n;
  // torch: log(n.float() / max_exact) / math.log(max_distance / max_exact) * (buckets -
  // max_exact), each step in float32, then .to(long) (toward zero).
  float ratio = std::log(float(n) / float(max_exact));
  ratio = ratio / float(std::log(double(b.max_distance) / double(max_exact)));
  ratio = ratio * float(buckets - max_exact);
  int64_t large = max_exact + int64_t(ratio);
  return offset + std::min(large, buckets - 1);
}

void relative_position_bias_forward(const Tensor& table, const RelativePositionBuckets& b,
                                    int64_t first_query, const Tensor& bias) {
  check(table.rank() == 2 && table.size(0) == b.num_buckets && bias.rank() == 3 &&
            bias.size(0) == table.size(1),
        "relative position bias: table " + table.describe() + " (expected [" +
            std::to_string(b.num_buckets) + ", heads]), bias " + bias.describe());
  const Device d = op_device("relative position bias", {&table, &bias});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::relative_position_bias_forward(table.f32(), b, first_query, bias.f32(),
                                                 bias.size(0), bias.size(1), bias.size(2));
    case DeviceKind::CUDA:
      break;
  }
  no_backend("relative position bias", d);
}

void relative_position_bias_backward(const Tensor& d_scores, const RelativePositionBuckets& b,
                                     int64_t first_query, const Tensor& dtable) {
  check(d_scores.rank() == 4 && dtable.rank() == 2 && dtable.size(0) == b.num_buckets &&
            dtable.size(1) == d_scores.size(1),
        "relative position bias backward: d_scores " + d_scores.describe() + ", dtable " +
            dtable.describe());
  const Device d = op_device("relative position bias backward", {&d_scores, &dtable});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::relative_position_bias_backward(d_scores.f32(), b, first_query, dtable.f32(),
                                                  d_scores.size(0), d_scores.size(1),
                                                  d_scores.size(2), d_scores.size(3));
    case DeviceKind::CUDA:
      break;
  }
  no_backend("relative position bias backward", d);
}

}  // namespace precis
