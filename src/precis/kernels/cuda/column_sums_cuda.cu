// column_sums_launch.h: the partials' sum, a warp a column (column_sums.cuh).
#include "precis/kernels/cuda/column_sums.cuh"
#include "precis/kernels/cuda/column_sums_launch.h"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"

namespace precis::cuda {

void add_column_partials(const double* partials, int64_t chunks, int64_t cols, float* out, Stream s) {
  if (cols == 0 || chunks == 0) return;
  declare_cost({double(chunks * cols) * sizeof(double) + double(cols) * sizeof(float),
                double(cols) * sizeof(float), double(chunks * cols), 0});
  PRECIS_LAUNCH(column_partials_sum_kernel,
                dim3{unsigned((cols + kColumnsPerSumBlock - 1) / kColumnsPerSumBlock)}, dim3{kColumnThreads}, s,
                partials, chunks, cols, out);
}

}  // namespace precis::cuda
