// The CUDA twin of convert (kernels/convert.h): fp32 to and from bf16 or fp16, elementwise,
// grid-stride (convert_kernels.cuh).
#include "precis/kernels/cuda/convert_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void convert_to_16(const float* src, uint16_t* dst, int64_t n, bool bf16, Stream s) {
  declare_cost({double(n) * sizeof(float), double(n) * sizeof(uint16_t), double(n), 0});
  PRECIS_LAUNCH_OVER(convert_to_16_kernel, n, s, src, dst, n, bf16);
}

void convert_from_16(const uint16_t* src, float* dst, int64_t n, bool bf16, Stream s) {
  declare_cost({double(n) * sizeof(uint16_t), double(n) * sizeof(float), double(n), 0});
  PRECIS_LAUNCH_OVER(convert_from_16_kernel, n, s, src, dst, n, bf16);
}

}  // namespace

void add_convert_twins(Kernels& k) {
  k.convert_to_16 = convert_to_16;
  k.convert_from_16 = convert_from_16;
}

}  // namespace precis::cuda
