// The CUDA twins of the elementwise ops and fills (kernels/elementwise.h, kernels/fill.h).
#include "precis/kernels/cuda/elementwise_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

dim3 grid_for(int64_t n) { return dim3{grid_stride_blocks(n)}; }

void fill(float* x, int64_t n, float value, Stream s) {
  PRECIS_LAUNCH(fill_kernel, grid_for(n), dim3{kThreads}, s, x, n, value);
}
void fill_normal(float* x, int64_t first, int64_t n, double std, uint64_t seed, uint64_t stream,
                 Stream s) {
  if (n > first)
    PRECIS_LAUNCH(fill_normal_kernel, grid_for(n - first), dim3{kThreads}, s, x, first, n, std, seed, stream);
}
void add(const float* a, const float* b, float* out, int64_t n, Stream s) {
  PRECIS_LAUNCH(add_kernel, grid_for(n), dim3{kThreads}, s, a, b, out, n);
}
void add_into(const float* x, float* out, int64_t n, Stream s) {
  PRECIS_LAUNCH(add_into_kernel, grid_for(n), dim3{kThreads}, s, x, out, n);
}
void scale_in_place(float* x, float factor, int64_t n, Stream s) {
  PRECIS_LAUNCH(scale_kernel, grid_for(n), dim3{kThreads}, s, x, factor, n);
}
void multiply(const float* a, const float* b, float* out, int64_t n, Stream s) {
  PRECIS_LAUNCH(multiply_kernel, grid_for(n), dim3{kThreads}, s, a, b, out, n);
}

}  // namespace

void add_fill_twins(Kernels& k) {
  k.fill = fill;
  k.fill_normal = fill_normal;
}

void add_elementwise_twins(Kernels& k) {
  k.add = add;
  k.add_into = add_into;
  k.scale_in_place = scale_in_place;
  k.multiply = multiply;
}

}  // namespace precis::cuda
