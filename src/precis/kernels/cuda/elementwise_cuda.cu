// The CUDA twins of the elementwise ops and fills (kernels/elementwise.h, kernels/fill.h); the
// elementwise ops in fp32 and in bf16/fp16.
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
template <class T>
void add(const T* a, const T* b, T* out, int64_t n, Stream s) {
  PRECIS_LAUNCH(add_kernel<T>, grid_for(n), dim3{kThreads}, s, a, b, out, n);
}
template <class T>
void add_into(const T* x, T* out, int64_t n, Stream s) {
  PRECIS_LAUNCH(add_into_kernel<T>, grid_for(n), dim3{kThreads}, s, x, out, n);
}
template <class T>
void scale_in_place(T* x, float factor, int64_t n, Stream s) {
  PRECIS_LAUNCH(scale_kernel<T>, grid_for(n), dim3{kThreads}, s, x, factor, n);
}
template <class T>
void multiply(const T* a, const T* b, T* out, int64_t n, Stream s) {
  PRECIS_LAUNCH(multiply_kernel<T>, grid_for(n), dim3{kThreads}, s, a, b, out, n);
}

void add_16(const uint16_t* a, const uint16_t* b, uint16_t* out, int64_t n, DType t, Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    add(as<T>(a), as<T>(b), as<T>(out), n, s);
  });
}
void add_into_16(const uint16_t* x, uint16_t* out, int64_t n, DType t, Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    add_into(as<T>(x), as<T>(out), n, s);
  });
}
void scale_in_place_16(uint16_t* x, float factor, int64_t n, DType t, Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    scale_in_place(as<T>(x), factor, n, s);
  });
}
void multiply_16(const uint16_t* a, const uint16_t* b, uint16_t* out, int64_t n, DType t,
                 Stream s) {
  with_16_bit(t, [&](auto e) {
    using T = decltype(e);
    multiply(as<T>(a), as<T>(b), as<T>(out), n, s);
  });
}

}  // namespace

void add_fill_twins(Kernels& k) {
  k.fill = fill;
  k.fill_normal = fill_normal;
}

void add_elementwise_twins(Kernels& k) {
  k.add = add<float>;
  k.add_into = add_into<float>;
  k.scale_in_place = scale_in_place<float>;
  k.multiply = multiply<float>;
  k.add_16 = add_16;
  k.add_into_16 = add_into_16;
  k.scale_in_place_16 = scale_in_place_16;
  k.multiply_16 = multiply_16;
}

}  // namespace precis::cuda
