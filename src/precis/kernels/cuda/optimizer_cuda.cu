// The CUDA twins of the fused AdamW (kernels/optimizer.h) and the gradient's sum of squares
// (kernels/grad_norm.h).
#include <vector>

#include "precis/kernels/cuda/grad_norm_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/optimizer_kernels.cuh"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void adamw_update(float* params, const float* grads, float* exp_avg, float* exp_avg_sq,
                  const uint32_t* decay_mask, int64_t n, const AdamWScalars& scalars, Stream s) {
  // params, grads and both moments read (and the mask's bit per element where given); params
  // and both moments written; about 15 operations an element (two lerps, sqrt, divide, decay).
  declare_cost({double(n) * 4 * sizeof(float) + (decay_mask ? double(n) / 8 : 0),
                double(n) * 3 * sizeof(float), double(n) * 15, 0});
  PRECIS_LAUNCH_OVER(adamw_kernel, n, s, params, grads, exp_avg, exp_avg_sq, decay_mask, n,
                     scalars);
}

// The blocks' partial sums come back to the host and are added there in block order.
double sum_of_squares(const float* x, int64_t n, Stream s) {
  if (n == 0) return 0.0;
  const int64_t blocks = sum_of_squares_blocks(n);
  auto* partials = static_cast<double*>(scratch(s, size_t(blocks) * sizeof(double)));
  declare_cost({double(n) * sizeof(float), double(blocks) * sizeof(double), double(n) * 2, 0});
  PRECIS_LAUNCH(sum_of_squares_partials, dim3{unsigned(blocks)}, dim3{kSumThreads}, s, x, n, partials);
  std::vector<double> host(static_cast<size_t>(blocks));
  copy_async(host.data(), partials, host.size() * sizeof(double), s);
  synchronize(s);
  double total = 0.0;
  for (double p : host) total += p;
  return total;
}

}  // namespace

void add_optimizer_twins(Kernels& k) { k.adamw_update = adamw_update; }

void add_grad_norm_twins(Kernels& k) { k.sum_of_squares = sum_of_squares; }

}  // namespace precis::cuda
