// bf16 linear layers against weights packed once for AMX (kernels/cpu/gemm.h's Bf16Weight, kept
// by kernels/constant_weights.h): the product is gemm_bf16's on AMX bit for bit (onto the bias
// rows, as linear_forward ran it), and linear_forward takes the kept pack where a scope holds
// the weight and the products are bf16 (`--quantization bf16`, or bf16 matmuls), not otherwise.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernel_test.h"
#include "precis/kernels/constant_weights.h"
#include "precis/kernels/cpu/constant_weights_cpu.h"
#include "precis/kernels/cpu/gemm.h"
#include "precis/kernels/linear.h"
#include "precis/kernels/matmul_precision.h"

namespace precis {
namespace {

constexpr const char* kNoAmxForPacks =
    "this CPU has no usable AMX-BF16 (or PRECIS_CPU_BF16=emulate), so the packed weights, which "
    "are AMX's, cannot run on this CPU; the emulated bf16 path is tested on every CPU";

struct Bf16Product {
  int64_t rows, in, out;
};

struct Bf16Operands {
  std::vector<float> x, w, b;
  Bf16Operands(const Bf16Product& p, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    x.resize(size_t(p.rows * p.in));
    w.resize(size_t(p.out * p.in));
    b.resize(size_t(p.out));
    for (std::vector<float>* v : {&x, &w, &b})
      for (float& e : *v) e = normal(gen);
  }
  // gemm_bf16 on AMX onto the bias rows: what linear_forward ran before weights were kept.
  std::vector<float> unpacked(const Bf16Product& p) const {
    std::vector<float> y(size_t(p.rows * p.out));
    for (int64_t r = 0; r < p.rows; ++r)
      std::memcpy(y.data() + r * p.out, b.data(), sizeof(float) * size_t(p.out));
    cpu::gemm_bf16(cpu::Bf16Path::kAmx, false, true, p.rows, p.out, p.in, 1.0f, x.data(), p.in,
                   w.data(), p.in, 1.0f, y.data(), p.out);
    return y;
  }
};

TEST(LinearBf16Packed, IsGemmBf16sProductBitForBit) {
  if (cpu::bf16_path() != cpu::Bf16Path::kAmx) GTEST_SKIP() << kNoAmxForPacks;
  for (const Bf16Product& p : {Bf16Product{1, 64, 12}, Bf16Product{37, 129, 70},
                               Bf16Product{300, 768, 33}, Bf16Product{16, 40, 600}}) {
    SCOPED_TRACE(std::to_string(p.rows) + " rows, in " + std::to_string(p.in) + ", out " +
                 std::to_string(p.out));
    Bf16Operands o(p, uint32_t(p.rows + p.out));
    const cpu::Bf16Weight packed = cpu::pack_bf16_weight(o.w.data(), p.in, p.out);
    std::vector<float> y(size_t(p.rows * p.out), -1.0f);
    cpu::linear_bf16_packed(packed, o.x.data(), o.b.data(), p.rows, y.data());
    EXPECT_EQ(y, o.unpacked(p));
  }
}

// The kept pack serves bf16 products only: under bf16 matmuls with a plain scope, or in a scope
// opened with --quantization bf16 (then whatever the matmul precision); fp32 products in a plain
// scope take the fp32 packs.
TEST(LinearBf16Packed, KeptWhereTheProductsAreBf16) {
  if (cpu::bf16_path() != cpu::Bf16Path::kAmx) GTEST_SKIP() << kNoAmxForPacks;
  struct ResetBf16Quantization {
    ~ResetBf16Quantization() { set_weight_quantization(WeightQuantization::kNone); }
  } reset;
  const Bf16Product p{50, 40, 60};
  Bf16Operands o(p, 2);
  const size_t bytes = o.w.size() * sizeof(float);
  std::vector<float> y(size_t(p.rows * p.out));
  const auto forward = [&] {
    linear_forward(testing::on_cpu(o.x, {p.rows, p.in}), testing::on_cpu(o.w, {p.out, p.in}),
                   testing::on_cpu(o.b, {p.out}), testing::on_cpu(y, {p.rows, p.out}));
    return y;
  };
  const std::vector<float> bf16 = o.unpacked(p);
  {
    const ConstantWeightsScope scope(o.w.data(), bytes);
    EXPECT_EQ(cpu::constant_bf16_weight(o.w.data(), p.in, p.out), nullptr) << "fp32 products";
    const ScopedCpuMatmulPrecision precision(MatmulPrecision::kBf16);
    EXPECT_NE(cpu::constant_bf16_weight(o.w.data(), p.in, p.out), nullptr);
    EXPECT_EQ(forward(), bf16);
  }
  set_weight_quantization(WeightQuantization::kBf16);
  const ConstantWeightsScope scope(o.w.data(), bytes);
  EXPECT_NE(cpu::constant_bf16_weight(o.w.data(), p.in, p.out), nullptr);
  EXPECT_EQ(forward(), bf16);
  o.w[0] += 1.0f;  // what a scope forbids: the pack shows it was made once
  EXPECT_EQ(forward(), bf16);
}

}  // namespace
}  // namespace precis
