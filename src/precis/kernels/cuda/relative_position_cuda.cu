// The CUDA twins of T5's relative position bias (kernels/relative_position.h): a thread per
// bias element forward; backward, a thread per diagonal of the scores' gradient, then one per
// table entry (relative_position_kernels.cuh).
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/relative_position_kernels.cuh"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void relative_position_bias_forward(const float* table, const RelativePositionBuckets& b,
                                    int64_t first_query, float* bias, int64_t heads, int64_t tq,
                                    int64_t tk, Stream s) {
  // The bucket of each (i, j) (a log and a few compares), one gather from the table.
  declare_cost({double(b.num_buckets * heads) * sizeof(float), double(heads * tq * tk) * sizeof(float),
                10.0 * double(heads * tq * tk), 0});
  PRECIS_LAUNCH_OVER(relative_position_bias_kernel, heads * tq * tk, s, table, b, first_query, bias,
                     heads, tq, tk);
}

void relative_position_bias_backward(const float* d_scores, const RelativePositionBuckets& b,
                                     int64_t first_query, float* dtable, int64_t batch,
                                     int64_t heads, int64_t tq, int64_t tk, Stream s) {
  const int64_t planes = batch * heads, diagonal_count = tq + tk - 1;
  if (planes == 0 || tq == 0 || tk == 0) return;
  auto* diagonals =
      static_cast<double*>(scratch(s, size_t(planes * diagonal_count) * sizeof(double)));
  declare_cost({double(planes * tq * tk) * sizeof(float),
                double(planes * diagonal_count) * sizeof(double), double(planes * tq * tk), 0});
  PRECIS_LAUNCH_OVER(relative_position_diagonal_sums_kernel, planes * diagonal_count, s, d_scores,
                     diagonals, planes, tq, tk);
  // Each entry's thread computes every diagonal's bucket (a log and a few compares).
  declare_cost(
      {double(planes * diagonal_count) * sizeof(double) +
           double(b.num_buckets * heads) * sizeof(float),
       double(b.num_buckets * heads) * sizeof(float),
       10.0 * double(b.num_buckets * heads * diagonal_count) + double(planes * diagonal_count), 0});
  PRECIS_LAUNCH_OVER(relative_position_bucket_sums_kernel, b.num_buckets * heads, s, diagonals, b,
                     first_query, dtable, batch, heads, tq, tk);
}

}  // namespace

void add_relative_position_twins(Kernels& k) {
  k.relative_position_bias_forward = relative_position_bias_forward;
  k.relative_position_bias_backward = relative_position_bias_backward;
}

}  // namespace precis::cuda
