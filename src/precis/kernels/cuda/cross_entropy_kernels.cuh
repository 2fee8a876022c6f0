// The CUDA twin's kernels of the cross-entropy (kernels/cross_entropy.h): one block per row of
// logits. The row's max, Σ exp(l - max) and Σ l are reductions over the block, each thread a
// strided slice of the vocabulary, then a tree over shared memory in a fixed order; the loss
// and the gradient of each element are cross_entropy_math.h's, as on the CPU. The sums are the
// CPU's up to the order of their additions (in double: ~1e-16 relative); the max is exact.
// The loss total is one block's fixed-order sum of the rows' losses in double.
// T is the logits' (and dlogits') element type (element.cuh): fp32, or bf16/fp16 loaded to
// float, the losses and sums as in fp32, and each gradient element rounded once.
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/cross_entropy_math.h"
#include "precis/kernels/cuda/block_sum.cuh"
#include "precis/kernels/cuda/element.cuh"

namespace precis::cuda {

// losses[row] = the row's loss as float (0 where ignored), row_losses[row] the same in double,
// for the total. A block per row: grid (n), block (kRowThreads).
template <class T>
PRECIS_KERNEL void cross_entropy_rows_kernel(const T* logits, const int32_t* labels, float* losses,
                                             double* row_losses, int64_t vocab,
                                             float label_smoothing) {
  PRECIS_SHARED(float[kRowThreads], maxima);
  PRECIS_SHARED(double[kRowThreads], exp_sums);
  PRECIS_SHARED(double[kRowThreads], logit_sums);
  const int64_t i = blockIdx.x;
  const int32_t label = labels[i];
  if (label == kIgnoreIndex) {  // the whole block leaves: no barrier is left waiting
    if (threadIdx.x == 0) {
      losses[i] = 0.0f;
      row_losses[i] = 0.0;
    }
    return;
  }
  const T* row = logits + i * vocab;
  const float max = block_row_max(row, vocab, maxima);
  double sum = 0.0, logit_sum = 0.0;
  for (int64_t j = threadIdx.x; j < vocab; j += blockDim.x) {
    const float v = load(row[j]);
    sum += std::exp(double(v - max));
    logit_sum += v;
  }
  block_sum_pair(sum, logit_sum, exp_sums, logit_sums);
  if (threadIdx.x == 0) {
    const double log_z = std::log(sum) + max;
    const double loss = cross_entropy_math::smoothed_loss(log_z, load(row[label]), logit_sum,
                                                          double(vocab), label_smoothing);
    losses[i] = float(loss);
    row_losses[i] = loss;
  }
}

// sum[0] = Σ row_losses, counted[0] = the rows not labelled -100: one block of kRowThreads.
PRECIS_KERNEL void cross_entropy_total_kernel(const double* row_losses, const int32_t* labels,
                                              int64_t n, double* sum, int64_t* counted) {
  PRECIS_SHARED(double[kRowThreads], sums);
  PRECIS_SHARED(int64_t[kRowThreads], counts);
  double s = 0.0;
  int64_t c = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    s += row_losses[i];  // 0 where ignored
    c += labels[i] != kIgnoreIndex;
  }
  block_sum_pair(s, c, sums, counts);
  if (threadIdx.x == 0) {
    sum[0] = s;
    counted[0] = c;
  }
}

// total[0] += sum[0] / global_tokens / accumulation_steps (training's share): one thread.
PRECIS_KERNEL void add_loss_share_kernel(const double* sum, double global_tokens,
                                         double accumulation_steps, double* total) {
  if (threadIdx.x == 0 && blockIdx.x == 0) total[0] += sum[0] / global_tokens / accumulation_steps;
}

// dlogits = d(loss_scale · Σ loss) / d logits, zeros on ignored rows; dlogits may be logits:
// every read of the row comes before the last barrier, and afterwards each thread reads only
// the elements it then writes. A block per row: grid (n), block (kRowThreads).
template <class T>
PRECIS_KERNEL void cross_entropy_backward_kernel(const T* logits, const int32_t* labels, T* dlogits,
                                                 int64_t vocab, float label_smoothing,
                                                 float loss_scale) {
  PRECIS_SHARED(float[kRowThreads], maxima);
  PRECIS_SHARED(double[kRowThreads], exp_sums);
  const int64_t i = blockIdx.x;
  const int32_t label = labels[i];
  const T* row = logits + i * vocab;
  T* drow = dlogits + i * vocab;
  if (label == kIgnoreIndex) {
    for (int64_t j = threadIdx.x; j < vocab; j += blockDim.x) store(drow[j], 0.0f);
    return;
  }
  const float max = block_row_max(row, vocab, maxima);
  double sum = 0.0;  // exp in float (as torch's softmax), summed in double, as the CPU
  for (int64_t j = threadIdx.x; j < vocab; j += blockDim.x) sum += std::exp(load(row[j]) - max);
  const float p_scale = float(double(loss_scale) / block_sum(sum, exp_sums));
  const float uniform = loss_scale * label_smoothing / float(vocab);
  const float label_share = cross_entropy_math::label_gradient(loss_scale, label_smoothing);
  for (int64_t j = threadIdx.x; j < vocab; j += blockDim.x) {
    float g = cross_entropy_math::logit_gradient(std::exp(load(row[j]) - max), p_scale, uniform);
    if (j == label) g -= label_share;  // the CPU's two roundings: the element, then the label
    store(drow[j], g);                 // and a 16-bit T's one
  }
}

}  // namespace precis::cuda
