// The CUDA twin of LayerNorm (kernels/layernorm.h): a block per row, the parameter gradients
// column sums over chunks of rows (column_sums.cuh), with x, y, dy and dx in fp32 or bf16/fp16.
#include "precis/kernels/cuda/column_sums_launch.h"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/layernorm_kernels.cuh"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

template <class T>
void layernorm_forward(const T* x, const float* weight, const float* bias, T* y, float* mean,
                       float* rstd, int64_t rows, int64_t cols, float eps, uint16_t* rounded,
                       bool bf16, Stream s) {
  // x read, y (and its rounded copy) written; weight and bias once; mean and rstd a float a row.
  // Sums, then normalise and scale: about 8 operations an element.
  declare_cost({double(rows * cols) * sizeof(T) + 2.0 * double(cols) * sizeof(float),
                double(rows * cols) * (sizeof(T) + (rounded ? 2.0 : 0.0)) +
                    2.0 * double(rows) * sizeof(float),
                8.0 * double(rows * cols), 0});
  PRECIS_LAUNCH_ROWS(layernorm_forward_kernel<T>, rows, s, x, weight, bias, y, mean, rstd, cols,
                     eps, rounded, bf16);
}

template <class T>
void layernorm_backward(const T* dy, const T* x, const float* weight, const float* mean,
                        const float* rstd, T* dx, float* dweight, float* dbias, int64_t rows,
                        int64_t cols, uint16_t* rounded, bool bf16, Stream s) {
  if (rows == 0) return;
  // In stream order: the parameter gradients read dy before dx (which may be dy) is written.
  // The parameter gradients' partials (column_sums.cuh), then each added onto its gradient.
  const int64_t chunks = column_chunks(rows);
  auto* partials = static_cast<double*>(scratch(s, size_t(2 * chunks * cols) * sizeof(double)));
  declare_cost({2.0 * double(rows * cols) * sizeof(T) + 2.0 * double(rows) * sizeof(float),
                2.0 * double(chunks * cols) * sizeof(double), 5.0 * double(rows * cols), 0});
  PRECIS_LAUNCH(layernorm_parameter_partials_kernel<T>,
                (dim3{unsigned((cols + kColumnThreads - 1) / kColumnThreads), unsigned(chunks)}),
                dim3{kColumnThreads}, s, dy, x, mean, rstd, partials, partials + chunks * cols, rows, cols);
  add_column_partials(partials, chunks, cols, dweight, s);
  add_column_partials(partials + chunks * cols, chunks, cols, dbias, s);
  declare_cost({2.0 * double(rows * cols) * sizeof(T) + double(cols) * sizeof(float) +
                    2.0 * double(rows) * sizeof(float),
                double(rows * cols) * (sizeof(T) + (rounded ? 2.0 : 0.0)),
                10.0 * double(rows * cols), 0});
  PRECIS_LAUNCH_ROWS(layernorm_input_gradient_kernel<T>, rows, s, dy, x, weight, mean, rstd, dx,
                     cols, rounded, bf16);
}

}  // namespace

void add_layernorm_twins(Kernels& k) {
  k.layernorm_forward = PRECIS_BY_DTYPE(layernorm_forward);
  k.layernorm_backward = PRECIS_BY_DTYPE(layernorm_backward);
}

}  // namespace precis::cuda
