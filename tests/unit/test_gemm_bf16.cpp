// bf16 matrix products on the CPU (kernels/cpu/gemm.h): both paths, AMX and emulated, against
// a double-precision product of the bf16-rounded operands, for every transpose, odd sizes,
// alpha and beta; the bits independent of the thread count; and gemm() following the CPU
// matmul precision (kernels/matmul_precision.h).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "precis/kernels/convert_math.h"
#include "precis/kernels/cpu/gemm.h"
#include "precis/kernels/matmul_precision.h"

using namespace precis;

namespace {

struct GemmCase {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float alpha, beta;
};

float round_bf16(float x) { return convert_math::from_bf16(convert_math::to_bf16(x)); }

// op(M)[i][j] of a row-major M with leading dimension ld.
float gemm_at(const std::vector<float>& mat, int64_t ld, bool trans, int64_t i, int64_t j) {
  return trans ? mat[size_t(j * ld + i)] : mat[size_t(i * ld + j)];
}

struct Operands {
  std::vector<float> a, b, c;
  int64_t lda, ldb;
  Operands(const GemmCase& g, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    lda = g.trans_a ? g.m : g.k;
    ldb = g.trans_b ? g.k : g.n;
    a.resize(size_t(g.m * g.k)), b.resize(size_t(g.k * g.n)), c.resize(size_t(g.m * g.n));
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    // beta = 0 must ignore C, NaN included.
    for (float& x : c) x = g.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : u(rng);
  }
};

std::vector<float> run_gemm(cpu::Bf16Path path, const GemmCase& g, Operands o) {
  cpu::gemm_bf16(path, g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, o.a.data(), o.lda,
                 o.b.data(), o.ldb, g.beta, o.c.data(), g.n);
  return o.c;
}

// Each element against sum_k bf16(a) bf16(b) in double. fp32 sums of k terms are within
// k · 2^-24 · Σ|products| of it (the classic bound γ_k), twice that for the alpha and beta
// roundings; an unrounded operand would be off by about 2^-9 relative, far outside.
void expect_near_reference(const GemmCase& g, const Operands& o, const std::vector<float>& c) {
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < g.k; ++p) {
        const double prod = double(round_bf16(gemm_at(o.a, o.lda, g.trans_a, i, p))) *
                            double(round_bf16(gemm_at(o.b, o.ldb, g.trans_b, p, j)));
        sum += prod, magnitude += std::fabs(prod);
      }
      const double before = g.beta == 0.0f ? 0.0 : double(o.c[size_t(i * g.n + j)]);
      const double want = double(g.alpha) * sum + double(g.beta) * before;
      const double tolerance =
          2.0 * double(g.k + 2) * std::ldexp(1.0, -24) * (std::fabs(g.alpha) * magnitude + std::fabs(before)) + 1e-30;
      ASSERT_NEAR(c[size_t(i * g.n + j)], want, tolerance) << "element (" << i << ", " << j << ")";
    }
}

const GemmCase kGemmCases[] = {
    {false, true, 37, 45, 70, 1.0f, 0.0f},   // linear forward: x · Wᵀ
    {false, false, 33, 70, 45, 1.0f, 0.0f},  // linear backward dx: dy · W
    {true, false, 45, 70, 37, 1.0f, 1.0f},   // linear backward dW += dyᵀ · x
    {true, true, 16, 17, 96, 0.5f, 0.25f},
    {false, false, 64, 96, 1, 1.0f, 0.0f},   // k below one pair
};

TEST(GemmBf16, EmulatedMatchesTheRoundedProduct) {
  for (const GemmCase& g : kGemmCases) {
    Operands o(g, 1);
    expect_near_reference(g, o, run_gemm(cpu::Bf16Path::kEmulated, g, o));
  }
}

TEST(GemmBf16, AmxMatchesTheRoundedProduct) {
  if (!cpu::amx_bf16_usable())
    GTEST_SKIP() << "this CPU has no AMX-BF16 (cpuid leaf 7 EDX bits 22 and 24), so the AMX "
                    "kernel cannot run on this CPU; the emulated path is tested on every CPU";
  for (const GemmCase& g : kGemmCases) {
    Operands o(g, 2);
    expect_near_reference(g, o, run_gemm(cpu::Bf16Path::kAmx, g, o));
  }
}

TEST(GemmBf16, SameBitsForAnyThreadCount) {
  const GemmCase g{false, true, 130, 200, 300, 1.0f, 1.0f};
  Operands o(g, 3);
  const int threads = omp_get_max_threads();
  for (cpu::Bf16Path path : {cpu::Bf16Path::kEmulated, cpu::Bf16Path::kAmx}) {
    if (path == cpu::Bf16Path::kAmx && !cpu::amx_bf16_usable()) continue;  // as above
    omp_set_num_threads(1);
    const std::vector<float> one = run_gemm(path, g, o);
    omp_set_num_threads(3);
    const std::vector<float> three = run_gemm(path, g, o);
    omp_set_num_threads(threads);
    EXPECT_EQ(one, three);
  }
}

TEST(GemmBf16, GemmFollowsTheMatmulPrecision) {
  const GemmCase g{false, true, 40, 50, 60, 1.0f, 0.0f};
  Operands o(g, 4);
  auto product = [&] {
    std::vector<float> c = o.c;
    cpu::gemm(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, o.a.data(), o.lda, o.b.data(), o.ldb,
              g.beta, c.data(), g.n);
    return c;
  };
  std::vector<float> fp32 = o.c;
  cpu::gemm_tiled(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, o.a.data(), o.lda, o.b.data(),
                  o.ldb, g.beta, fp32.data(), g.n);
  EXPECT_EQ(cpu_matmul_precision(), MatmulPrecision::kFp32);
  EXPECT_EQ(product(), fp32);
  {
    ScopedCpuMatmulPrecision bf16(MatmulPrecision::kBf16);
    const std::vector<float> expected =
        run_gemm(cpu::bf16_path(), g, o);
    EXPECT_EQ(product(), expected);
    EXPECT_NE(product(), fp32);
  }
  EXPECT_EQ(cpu_matmul_precision(), MatmulPrecision::kFp32);
}

}  // namespace
