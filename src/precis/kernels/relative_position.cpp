#include "precis/kernels/relative_position.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"
#include "precis/kernels/relative_position_math.h"

namespace precis {

int64_t relative_position_bucket(int64_t relative_position, const RelativePositionBuckets& b) {
  return relative_position_math::bucket(relative_position, b.bidirectional, b.num_buckets,
                                        b.max_distance);
}

void relative_position_bias_forward(const Tensor& table, const RelativePositionBuckets& b,
                                    int64_t first_query, const Tensor& bias) {
  check(table.rank() == 2 && table.size(0) == b.num_buckets && bias.rank() == 3 &&
            bias.size(0) == table.size(1),
        "relative position bias: table " + table.describe() + " (expected [" +
            std::to_string(b.num_buckets) + ", heads]), bias " + bias.describe());
  return dispatch_op(
      "relative position bias", {&table, &bias},
      [&] {
        return cpu::relative_position_bias_forward(table.f32(), b, first_query, bias.f32(),
                                                   bias.size(0), bias.size(1), bias.size(2));
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::relative_position_bias_forward, table.f32(), b, first_query,
                       bias.f32(), bias.size(0), bias.size(1), bias.size(2));
      });
}

void relative_position_bias_backward(const Tensor& d_scores, const RelativePositionBuckets& b,
                                     int64_t first_query, const Tensor& dtable) {
  check(d_scores.rank() == 4 && dtable.rank() == 2 && dtable.size(0) == b.num_buckets &&
            dtable.size(1) == d_scores.size(1),
        "relative position bias backward: d_scores " + d_scores.describe() + ", dtable " +
            dtable.describe());
  return dispatch_op(
      "relative position bias backward", {&d_scores, &dtable},
      [&] {
        return cpu::relative_position_bias_backward(d_scores.f32(), b, first_query, dtable.f32(),
                                                    d_scores.size(0), d_scores.size(1),
                                                    d_scores.size(2), d_scores.size(3));
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::relative_position_bias_backward, d_scores.f32(), b,
                       first_query, dtable.f32(), d_scores.size(0), d_scores.size(1),
                       d_scores.size(2), d_scores.size(3));
      });
}

}  // namespace precis
