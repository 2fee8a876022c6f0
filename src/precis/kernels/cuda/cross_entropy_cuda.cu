// The CUDA twins of the cross-entropy (kernels/cross_entropy.h): the rows' losses, then one
// block's fixed-order sum of them in double (a scratch buffer: rows' losses, the sum, the
// count). The host form reads the sum and the count back; the training form adds its share to
// the device's total without reading anything back. The logits and their gradient are fp32 or
// bf16/fp16 (each launcher's T); the losses and their sums are fp32 and double either way.
#include "precis/kernels/cuda/cross_entropy_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

struct LossTotal {
  double sum;
  int64_t counted;
};

// The rows' losses and their total, in scratch memory laid out (n) doubles then a LossTotal.
template <class T>
LossTotal* loss_total(const T* logits, const int32_t* labels, float* losses, int64_t n,
                      int64_t vocab, float label_smoothing, Stream s) {
  auto* row_losses =
      static_cast<double*>(scratch(s, size_t(n) * sizeof(double) + sizeof(LossTotal)));
  auto* total = reinterpret_cast<LossTotal*>(row_losses + n);
  // The logits and labels read; a float and a double a row written. Max, exp and sums: about 6
  // operations a logit.
  declare_cost({double(n * vocab) * sizeof(T) + double(n) * sizeof(int32_t),
                double(n) * (sizeof(float) + sizeof(double)), 6.0 * double(n * vocab), 0});
  PRECIS_LAUNCH_ROWS(cross_entropy_rows_kernel<T>, n, s, logits, labels, losses, row_losses, vocab,
                     label_smoothing);
  declare_cost({double(n) * (sizeof(double) + sizeof(int32_t)), sizeof(LossTotal), 2.0 * double(n), 0});
  PRECIS_LAUNCH(cross_entropy_total_kernel, dim3{1}, dim3{kRowThreads}, s, row_losses, labels, n,
                &total->sum, &total->counted);
  return total;
}

template <class T>
double cross_entropy_forward(const T* logits, const int32_t* labels, float* losses, int64_t n,
                             int64_t vocab, float label_smoothing, int64_t* counted, Stream s) {
  const LossTotal* total = loss_total(logits, labels, losses, n, vocab, label_smoothing, s);
  LossTotal host{};
  copy_async(&host, total, sizeof(LossTotal), s);
  synchronize(s);
  *counted = host.counted;
  return host.sum;
}

template <class T>
void cross_entropy_forward_into(const T* logits, const int32_t* labels, float* losses, int64_t n,
                                int64_t vocab, float label_smoothing, double global_tokens,
                                double accumulation_steps, double* total, Stream s) {
  const LossTotal* sum = loss_total(logits, labels, losses, n, vocab, label_smoothing, s);
  declare_cost({2 * sizeof(double), sizeof(double), 3, 0});
  PRECIS_LAUNCH(add_loss_share_kernel, dim3{1}, dim3{1}, s, &sum->sum, global_tokens,
                accumulation_steps, total);
}

template <class T>
void cross_entropy_backward(const T* logits, const int32_t* labels, T* dlogits, int64_t n,
                            int64_t vocab, float label_smoothing, float loss_scale, Stream s) {
  declare_cost({double(n * vocab) * sizeof(T) + double(n) * sizeof(int32_t),
                double(n * vocab) * sizeof(T), 8.0 * double(n * vocab), 0});
  PRECIS_LAUNCH_ROWS(cross_entropy_backward_kernel<T>, n, s, logits, labels, dlogits, vocab,
                     label_smoothing, loss_scale);
}

}  // namespace

void add_cross_entropy_twins(Kernels& k) {
  k.cross_entropy_forward = PRECIS_BY_DTYPE(cross_entropy_forward);
  k.cross_entropy_forward_into = PRECIS_BY_DTYPE(cross_entropy_forward_into);
  k.cross_entropy_backward = PRECIS_BY_DTYPE(cross_entropy_backward);
}

}  // namespace precis::cuda
