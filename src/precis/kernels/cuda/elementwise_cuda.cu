// The CUDA twins of the elementwise ops and fills (kernels/elementwise.h, kernels/fill.h); the
// elementwise ops in fp32 and in bf16/fp16.
#include "precis/kernels/cuda/elementwise_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void fill(float* x, int64_t n, float value, Stream s) {
  declare_cost(elementwise_cost(n, 0, 1, sizeof(float), 0));
  PRECIS_LAUNCH_OVER(fill_kernel, n, s, x, n, value);
}
void fill_normal(float* x, int64_t first, int64_t n, double std, uint64_t seed, uint64_t stream,
                 Stream s) {
  if (n <= first) return;
  // Philox, then Box-Muller's log, sqrt and cosine: about 60 operations a value.
  declare_cost(elementwise_cost(n - first, 0, 1, sizeof(float), 60));
  PRECIS_LAUNCH_OVER(fill_normal_kernel, n - first, s, x, first, n, std, seed, stream);
}
template <class T>
void add(const T* a, const T* b, T* out, int64_t n, Stream s) {
  declare_cost(elementwise_cost(n, 2, 1, sizeof(T)));
  PRECIS_LAUNCH_OVER(add_kernel<T>, n, s, a, b, out, n);
}
template <class T>
void add_to_fp32(const float* a, const T* b, float* out, int64_t n, Stream s) {
  declare_cost(
      {double(n) * double(sizeof(float) + sizeof(T)), double(n) * sizeof(float), double(n), 0});
  PRECIS_LAUNCH_OVER(add_to_fp32_kernel<T>, n, s, a, b, out, n);
}
template <class T>
void add_into(const T* x, T* out, int64_t n, Stream s) {
  declare_cost(elementwise_cost(n, 2, 1, sizeof(T)));
  PRECIS_LAUNCH_OVER(add_into_kernel<T>, n, s, x, out, n);
}
template <class T>
void scale_in_place(T* x, float factor, int64_t n, Stream s) {
  declare_cost(elementwise_cost(n, 1, 1, sizeof(T)));
  PRECIS_LAUNCH_OVER(scale_kernel<T>, n, s, x, factor, n);
}
template <class T>
void multiply(const T* a, const T* b, T* out, int64_t n, Stream s) {
  declare_cost(elementwise_cost(n, 2, 1, sizeof(T)));
  PRECIS_LAUNCH_OVER(multiply_kernel<T>, n, s, a, b, out, n);
}

}  // namespace

void add_elementwise_twins(Kernels& k) {
  k.fill = fill;
  k.fill_normal = fill_normal;
  k.add = PRECIS_BY_DTYPE(add);
  k.add_to_fp32 = PRECIS_BY_DTYPE(add_to_fp32);
  k.add_into = PRECIS_BY_DTYPE(add_into);
  k.scale_in_place = PRECIS_BY_DTYPE(scale_in_place);
  k.multiply = PRECIS_BY_DTYPE(multiply);
}

}  // namespace precis::cuda
