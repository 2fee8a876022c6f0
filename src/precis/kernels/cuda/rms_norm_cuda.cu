// The CUDA twin of RMSNorm (kernels/rms_norm.h): a block per row, the weight gradient a thread
// per column (rms_norm_kernels.cuh), with x, y, dy and dx in fp32 or in bf16/fp16.
#include "precis/kernels/cuda/column_sums_launch.h"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/rms_norm_kernels.cuh"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

template <class T>
void rms_norm_forward(const T* x, const float* weight, T* y, float* rstd, int64_t rows,
                      int64_t cols, float eps, uint16_t* rounded, bool bf16, Stream s) {
  declare_cost(
      {double(rows * cols) * sizeof(T) + double(cols) * sizeof(float),
       double(rows * cols) * (sizeof(T) + (rounded ? 2.0 : 0.0)) + double(rows) * sizeof(float),
       5.0 * double(rows * cols), 0});
  PRECIS_LAUNCH_ROWS(rms_norm_forward_kernel<T>, rows, s, x, weight, y, rstd, cols, eps, rounded,
                     bf16);
}

template <class T>
void rms_norm_backward(const T* dy, const T* x, const float* weight, const float* rstd, T* dx,
                       float* dweight, int64_t rows, int64_t cols, Stream s) {
  if (rows == 0) return;
  // In stream order: the weight gradient reads dy before dx (which may be dy) is written.
  // The weight gradient's partials (column_sums.cuh), then added onto it.
  const int64_t chunks = column_chunks(rows);
  auto* partials = static_cast<double*>(scratch(s, size_t(chunks * cols) * sizeof(double)));
  declare_cost({2.0 * double(rows * cols) * sizeof(T) + double(rows) * sizeof(float),
                double(chunks * cols) * sizeof(double), 3.0 * double(rows * cols), 0});
  PRECIS_LAUNCH(rms_norm_weight_partials_kernel<T>,
                (dim3{unsigned((cols + kColumnThreads - 1) / kColumnThreads), unsigned(chunks)}),
                dim3{kColumnThreads}, s, dy, x, rstd, partials, rows, cols);
  add_column_partials(partials, chunks, cols, dweight, s);
  declare_cost({2.0 * double(rows * cols) * sizeof(T) + double(cols) * sizeof(float) +
                    double(rows) * sizeof(float),
                double(rows * cols) * sizeof(T), 7.0 * double(rows * cols), 0});
  PRECIS_LAUNCH_ROWS(rms_norm_input_gradient_kernel<T>, rows, s, dy, x, weight, rstd, dx, cols);
}

}  // namespace

void add_rms_norm_twins(Kernels& k) {
  k.rms_norm_forward = PRECIS_BY_DTYPE(rms_norm_forward);
  k.rms_norm_backward = PRECIS_BY_DTYPE(rms_norm_backward);
}

}  // namespace precis::cuda
