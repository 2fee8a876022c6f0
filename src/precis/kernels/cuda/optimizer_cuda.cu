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
  // params, grads and both moments read (and the mask's bit per element where given, and the
  // norm clipping reads); params and both moments written (and the compute copy's 16 bits);
  // about 15 operations an element (two lerps, sqrt, divide, decay).
  declare_cost({double(n) * 4 * sizeof(float) + (decay_mask ? double(n) / 8 : 0) +
                    (scalars.clip.norm_squared ? sizeof(double) : 0),
                double(n) * (3 * sizeof(float) + (scalars.copy16 ? sizeof(uint16_t) : 0)),
                double(n) * 15, 0});
  PRECIS_LAUNCH_OVER(adamw_kernel, n, s, params, grads, exp_avg, exp_avg_sq, decay_mask, n,
                     scalars);
}

// The blocks' partial sums, then their sum in block order into *total: on the device, so a
// training step need not wait for it (the clipping scale is formed there too).
void sum_of_squares_into(const float* x, int64_t n, double* total, Stream s) {
  if (n == 0) {
    memset_async(total, 0, sizeof(double), s);
    return;
  }
  const int64_t blocks = sum_of_squares_blocks(n);
  auto* partials = static_cast<double*>(scratch(s, size_t(blocks) * sizeof(double)));
  declare_cost({double(n) * sizeof(float), double(blocks) * sizeof(double), double(n) * 2, 0});
  PRECIS_LAUNCH(sum_of_squares_partials, dim3{unsigned(blocks)}, dim3{kSumThreads}, s, x, n,
                partials);
  declare_cost({double(blocks) * sizeof(double), sizeof(double), double(blocks), 0});
  PRECIS_LAUNCH(sum_in_block_order, dim3{1}, dim3{1}, s, partials, blocks, total);
}

// The same, read back: a wait for the queue.
double sum_of_squares(const float* x, int64_t n, Stream s) {
  if (n == 0) return 0.0;
  // After the partials in the scratch buffer (scratch() keeps what fits).
  const size_t partials = size_t(sum_of_squares_blocks(n)) * sizeof(double);
  auto* total = reinterpret_cast<double*>(
      static_cast<char*>(scratch(s, partials + sizeof(double))) + partials);
  sum_of_squares_into(x, n, total, s);
  double host = 0.0;
  copy_async(&host, total, sizeof(double), s);
  synchronize(s);
  return host;
}

}  // namespace

void add_optimizer_twins(Kernels& k) { k.adamw_update = adamw_update; }

void add_grad_norm_twins(Kernels& k) {
  k.sum_of_squares = sum_of_squares;
  k.sum_of_squares_into = sum_of_squares_into;
}

}  // namespace precis::cuda
