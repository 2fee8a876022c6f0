// The fp32 matrix product on the CPU (kernels/cpu/gemm.h, gemm_tiled): its tiles follow the
// thread count for products big enough to stay on OpenBLAS's blocked path, so these tests hold
// it to what makes that safe: the same bits at every thread count, for every transpose, odd
// sizes, beta 0 and 1 (beta 0 with alpha 1 and no transposes is the one case OpenBLAS may send
// down its direct kernel), and products too small for the blocked path (the fixed grid, with
// tiles on the small-matrix and direct kernels). And the product is the product: against a
// double-precision one.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include "precis/kernels/cpu/gemm.h"

namespace {

struct TiledProduct {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float beta;
};

// Large products (every thread count's tiles on the blocked path), odd edges among them, and
// small ones (the fixed grid): 77 x 9 corner tiles, k under 32, one row.
const TiledProduct kProducts[] = {
    {false, true, 333, 777, 555, 0.0f},   {true, false, 333, 777, 555, 1.0f},
    {false, false, 333, 777, 555, 0.0f},  {true, true, 200, 1000, 130, 1.0f},
    {false, true, 1000, 64, 300, 0.0f},   {false, false, 130, 130, 130, 0.0f},
    {true, false, 333, 777, 20, 1.0f},    {false, true, 1, 3000, 700, 0.0f},
    {false, false, 300, 1100, 100, 0.0f},
};

struct TiledOperands {
  std::vector<float> a, b, c;
  int64_t lda, ldb;
  TiledOperands(const TiledProduct& p, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    a.resize(size_t(p.m * p.k));
    b.resize(size_t(p.k * p.n));
    c.resize(size_t(p.m * p.n));
    for (std::vector<float>* v : {&a, &b, &c})
      for (float& x : *v) x = normal(gen);
    lda = p.trans_a ? p.m : p.k;
    ldb = p.trans_b ? p.k : p.n;
  }
};

std::vector<float> product_at(const TiledProduct& p, const TiledOperands& o, int threads) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  std::vector<float> c = o.c;
  precis::cpu::gemm_tiled(p.trans_a, p.trans_b, p.m, p.n, p.k, 1.0f, o.a.data(), o.lda, o.b.data(),
                          o.ldb, p.beta, c.data(), p.n);
  omp_set_num_threads(before);
  return c;
}

TEST(GemmTiled, SameBitsForAnyThreadCount) {
  for (const TiledProduct& p : kProducts) {
    TiledOperands o(p, uint32_t(p.m * 7 + p.n));
    const std::vector<float> one = product_at(p, o, 1);
    for (int threads : {2, 3, 4, 5, 8, 16, 32, 64}) {
      SCOPED_TRACE(::testing::Message()
                   << p.m << "x" << p.n << "x" << p.k << " trans " << p.trans_a << p.trans_b
                   << " beta " << p.beta << ", " << threads << " threads");
      EXPECT_TRUE(product_at(p, o, threads) == one);
    }
  }
}

TEST(GemmTiled, EqualsTheProductInDouble) {
  for (const TiledProduct& p : kProducts) {
    TiledOperands o(p, 11);
    const std::vector<float> c = product_at(p, o, 3);
    for (int64_t i = 0; i < p.m; i += 7)
      for (int64_t j = 0; j < p.n; j += 5) {
        double sum = 0.0, magnitude = 0.0;
        for (int64_t l = 0; l < p.k; ++l) {
          const double x = p.trans_a ? o.a[size_t(l * o.lda + i)] : o.a[size_t(i * o.lda + l)];
          const double y = p.trans_b ? o.b[size_t(j * o.ldb + l)] : o.b[size_t(l * o.ldb + j)];
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        const double expected = sum + p.beta * o.c[size_t(i * p.n + j)];
        // fp32 sums of k terms: within k units of 2^-24 of the sum of magnitudes.
        ASSERT_NEAR(c[size_t(i * p.n + j)], expected, (magnitude + 1.0) * double(p.k) * 0x1p-24)
            << "C[" << i << "][" << j << "] of " << p.m << "x" << p.n << "x" << p.k;
      }
  }
}

}  // namespace
