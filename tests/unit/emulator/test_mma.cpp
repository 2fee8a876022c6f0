// The tensor-core product of kernels/cuda/mma.cuh in the kernel emulator: one warp's
// m16n8k16 with the PTX ISA's register layout. A kernel loads A, B and C into the documented
// registers and stores D by the documented layout (tests/gpu/mma_tile_kernel.cuh); D must be
// A·B + C, each element within the fp32 rounding of its 16 exact products. The same kernel runs
// on a GPU in tests/gpu/kernels_on_device.cu, which is what confirms the layout itself.
#include "emulator/emulator.h"  // first: it defines what the kernel bodies use

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gpu/mma_tile_kernel.cuh"
#include "precis/kernels/convert_math.h"

using namespace precis;

namespace {

template <class T>
void expect_product(uint16_t (*to_bits)(float), float (*from_bits)(uint16_t), unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<uint16_t> a(16 * 16), b(16 * 8);
  std::vector<float> c(16 * 8), d(16 * 8, NAN);
  for (auto& x : a) x = to_bits(u(rng));
  for (auto& x : b) x = to_bits(u(rng));
  for (auto& x : c) x = u(rng);
  EMULATE(cuda::mma_tile_kernel<T>, dim3{1}, dim3{32}, a.data(), b.data(), c.data(), d.data());
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double exact = c[size_t(i * 8 + j)], magnitude = std::abs(exact);
      for (int k = 0; k < 16; ++k) {
        const double term = double(from_bits(a[size_t(i * 16 + k)])) * double(from_bits(b[size_t(k * 8 + j)]));
        exact += term;
        magnitude += std::abs(term);
      }
      // 17 fp32 additions of exact terms: each rounds by at most 2^-24 of the running sum.
      EXPECT_NEAR(d[size_t(i * 8 + j)], exact, 17 * 0x1p-24 * magnitude) << "D[" << i << "][" << j << "]";
    }
}

}  // namespace

TEST(EmulatedMma, Bf16TileIsTheProductByTheDocumentedLayout) {
  expect_product<cuda::bf16>(convert_math::to_bf16, convert_math::from_bf16, 1);
}

TEST(EmulatedMma, Fp16TileIsTheProductByTheDocumentedLayout) {
  expect_product<cuda::f16>(convert_math::to_f16, convert_math::from_f16, 2);
}
