// The decoding step's linear kernels (kernels/cpu/linear_few_rows.h), each form this machine
// runs (AVX-512 machines run both): the product each computes is the product (against one in
// double), at 8 to 32 rows, `in` off its 8-lane slices and output widths off its tiles; every
// thread count gives the same bits; and linear_forward takes the build's form for those rows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test.h"
#include "precis/kernels/cpu/linear_few_rows.h"
#include "precis/kernels/linear.h"

namespace precis {
namespace {

struct FewRowsProduct {
  int64_t rows, in, out;
};

// Rows at both ends of the range and between; `in` of 1, odd and long; `out` under one tile, on
// a tile's edge and past it.
const FewRowsProduct kFewRowsProducts[] = {{8, 64, 12}, {13, 129, 25},  {32, 768, 100}, {31, 1, 7},
                                           {9, 300, 1}, {32, 3072, 37}, {20, 17, 36}};

struct FewRowsOperands {
  std::vector<float> x, w, b;
  FewRowsOperands(const FewRowsProduct& p, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    x.resize(size_t(p.rows * p.in));
    w.resize(size_t(p.out * p.in));
    b.resize(size_t(p.out));
    for (std::vector<float>* v : {&x, &w, &b})
      for (float& e : *v) e = normal(gen);
  }
  std::vector<float> product(cpu::FewRowsKernel kernel, const FewRowsProduct& p,
                             bool bias) const {
    std::vector<float> y(size_t(p.rows * p.out), -1.0f);
    cpu::linear_few_rows(kernel, x.data(), w.data(), bias ? b.data() : nullptr, y.data(), p.rows,
                         p.in, p.out);
    return y;
  }
};

// The forms this build and CPU run.
std::vector<cpu::FewRowsKernel> kernels_here() {
  std::vector<cpu::FewRowsKernel> here;
  for (cpu::FewRowsKernel k : {cpu::FewRowsKernel::kAvx512, cpu::FewRowsKernel::kAvx2})
    if (cpu::few_rows_kernel_runs(k)) here.push_back(k);
  return here;
}

constexpr const char* kNoKernel =
    "the kernels need an AVX-512 or AVX2 build and CPU, so they cannot run on this CPU (sgemm "
    "runs, "
    "tested on every CPU)";

std::string describe(const FewRowsProduct& p) {
  return std::to_string(p.rows) + " rows, in " + std::to_string(p.in) + ", out " +
         std::to_string(p.out);
}

void expect_the_product_in_double(cpu::FewRowsKernel kernel) {
  for (const FewRowsProduct& p : kFewRowsProducts) {
    SCOPED_TRACE(describe(p));
    FewRowsOperands o(p, uint32_t(p.rows * 31 + p.out));
    const std::vector<float> y = o.product(kernel, p, true);
    for (int64_t r = 0; r < p.rows; ++r)
      for (int64_t j = 0; j < p.out; ++j) {
        double sum = o.b[size_t(j)], magnitude = std::fabs(o.b[size_t(j)]);
        for (int64_t c = 0; c < p.in; ++c) {
          const double term = double(o.x[size_t(r * p.in + c)]) * o.w[size_t(j * p.in + c)];
          sum += term;
          magnitude += std::fabs(term);
        }
        // fp32 sums of in + 1 terms: within that many units of 2^-24 of the sum of magnitudes.
        ASSERT_NEAR(y[size_t(r * p.out + j)], sum, magnitude * double(p.in + 1) * 0x1p-24)
            << "y[" << r << "][" << j << "]";
      }
  }
}

TEST(LinearFewRows, EqualsTheProductInDouble) {
  if (kernels_here().empty()) GTEST_SKIP() << kNoKernel;
  for (cpu::FewRowsKernel kernel : kernels_here()) {
    SCOPED_TRACE("kernel " + std::to_string(int(kernel)));
    expect_the_product_in_double(kernel);
  }
}

TEST(LinearFewRows, SameBitsForAnyThreadCount) {
  if (kernels_here().empty()) GTEST_SKIP() << kNoKernel;
  const FewRowsProduct p{30, 300, 1000};
  FewRowsOperands o(p, 3);
  for (cpu::FewRowsKernel kernel : kernels_here())
    testing::expect_same_for_thread_counts([&] { return o.product(kernel, p, true); }, {2, 3, 7});
}

// linear_forward runs the build's form for 8 to 32 rows, and sgemm outside them.
TEST(LinearFewRows, LinearForwardTakesItForFewRows) {
  if (kernels_here().empty()) GTEST_SKIP() << kNoKernel;
  for (const FewRowsProduct& p : {FewRowsProduct{8, 200, 50}, FewRowsProduct{32, 200, 50}}) {
    SCOPED_TRACE(describe(p));
    FewRowsOperands o(p, 5);
    std::vector<float> y(size_t(p.rows * p.out));
    linear_forward(testing::on_cpu(o.x, {p.rows, p.in}), testing::on_cpu(o.w, {p.out, p.in}),
                   testing::on_cpu(o.b, {p.out}), testing::on_cpu(y, {p.rows, p.out}));
    EXPECT_EQ(y, o.product(cpu::few_rows_kernel(), p, true));
  }
}

}  // namespace
}  // namespace precis
