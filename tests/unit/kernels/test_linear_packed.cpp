// The decoding step's linear layer against a weight packed once (kernels/cpu/linear_packed.h)
// and the scope that keeps the packs (kernels/constant_weights.h): the product is the product
// (against one in double) for every row-block size and output widths off the panels, with the
// bits of the few-rows form where both run; every thread count gives the same bits;
// linear_forward takes it inside a scope, for weights in the scope's memory only, and sgemm
// outside one.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test.h"
#include "precis/kernels/constant_weights.h"
#include "precis/kernels/cpu/constant_weights_cpu.h"
#include "precis/kernels/cpu/linear_few_rows.h"
#include "precis/kernels/linear.h"

namespace precis {
namespace {

struct PackedProduct {
  int64_t rows, in, out;
};

// Rows of every block size (1 .. 12) and several blocks; `in` of 1, odd and long; `out` under
// one panel, on a panel's edge, past it and past its first half.
const PackedProduct kPackedProducts[] = {
    {1, 64, 12},    {13, 129, 25}, {40, 768, 100},  {31, 1, 7},  {9, 300, 1},
    {100, 128, 32}, {7, 17, 48},   {256, 128, 130}, {2, 33, 17}, {11, 5, 64}};

struct PackedOperands {
  std::vector<float> x, w, b;
  PackedOperands(const PackedProduct& p, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    x.resize(size_t(p.rows * p.in));
    w.resize(size_t(p.out * p.in));
    b.resize(size_t(p.out));
    for (std::vector<float>* v : {&x, &w, &b})
      for (float& e : *v) e = normal(gen);
  }
  std::vector<float> packed_product(const PackedProduct& p, bool bias) const {
    const cpu::PackedWeight packed = cpu::pack_weight(w.data(), p.in, p.out);
    std::vector<float> y(size_t(p.rows * p.out), -1.0f);
    cpu::linear_packed(packed, x.data(), bias ? b.data() : nullptr, y.data(), p.rows);
    return y;
  }
};

constexpr const char* kNoPackedKernel =
    "the packed kernel needs an AVX-512 build and CPU, so it cannot run on this CPU; the few-rows "
    "kernels and sgemm, which such a CPU runs instead, are tested on every CPU";

std::string describe_packed(const PackedProduct& p) {
  return std::to_string(p.rows) + " rows, in " + std::to_string(p.in) + ", out " +
         std::to_string(p.out);
}

TEST(LinearPacked, EqualsTheProductInDouble) {
  if (!cpu::packed_linear_runs()) GTEST_SKIP() << kNoPackedKernel;
  for (const PackedProduct& p : kPackedProducts)
    for (bool bias : {true, false}) {
      SCOPED_TRACE(describe_packed(p) + (bias ? ", bias" : ", no bias"));
      PackedOperands o(p, uint32_t(p.rows * 31 + p.out));
      const std::vector<float> y = o.packed_product(p, bias);
      for (int64_t r = 0; r < p.rows; ++r)
        for (int64_t j = 0; j < p.out; ++j) {
          double sum = bias ? o.b[size_t(j)] : 0.0, magnitude = std::fabs(sum);
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

// One chain of fused multiply-adds per element, then the bias: the few-rows form's bits, so a
// decoding step's rows get the same logits whichever form their count picks.
TEST(LinearPacked, TheFewRowsFormsBits) {
  if (!cpu::packed_linear_runs() || !cpu::few_rows_kernel_runs(cpu::FewRowsKernel::kAvx512))
    GTEST_SKIP() << kNoPackedKernel;
  for (const PackedProduct& p :
       {PackedProduct{8, 64, 12}, PackedProduct{32, 768, 100}, PackedProduct{20, 17, 36}}) {
    SCOPED_TRACE(describe_packed(p));
    PackedOperands o(p, 9);
    std::vector<float> few(size_t(p.rows * p.out));
    cpu::linear_few_rows(cpu::FewRowsKernel::kAvx512, o.x.data(), o.w.data(), o.b.data(),
                         few.data(), p.rows, p.in, p.out);
    EXPECT_EQ(o.packed_product(p, true), few);
  }
}

TEST(LinearPacked, SameBitsForAnyThreadCount) {
  if (!cpu::packed_linear_runs()) GTEST_SKIP() << kNoPackedKernel;
  const PackedProduct p{100, 300, 1000};
  PackedOperands o(p, 3);
  testing::expect_same_for_thread_counts([&] { return o.packed_product(p, true); }, {2, 3, 7});
}

// Inside a scope, a weight in its memory is packed once and reused; one outside it is not.
TEST(ConstantWeightsScope, PacksOnlyItsOwnMemoryOnce) {
  if (!cpu::packed_linear_runs()) GTEST_SKIP() << kNoPackedKernel;
  std::vector<float> held(64 * 32, 0.5f), elsewhere(64 * 32, 0.5f);
  EXPECT_EQ(cpu::constant_packed_weight(held.data(), 32, 64), nullptr) << "no scope is open";
  {
    const ConstantWeightsScope scope(held.data(), held.size() * sizeof(float));
    const cpu::PackedWeight* first = cpu::constant_packed_weight(held.data(), 32, 64);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(cpu::constant_packed_weight(held.data(), 32, 64), first) << "packed again";
    EXPECT_EQ(cpu::constant_packed_weight(elsewhere.data(), 32, 64), nullptr);
    // A weight running past the scope's end is not its own.
    EXPECT_EQ(cpu::constant_packed_weight(held.data() + 32, 32, 64), nullptr);
    {
      const ConstantWeightsScope inner(elsewhere.data(), elsewhere.size() * sizeof(float));
      EXPECT_NE(cpu::constant_packed_weight(elsewhere.data(), 32, 64), nullptr);
      EXPECT_EQ(cpu::constant_packed_weight(held.data(), 32, 64), nullptr)
          << "the inner one counts";
    }
    EXPECT_EQ(cpu::constant_packed_weight(held.data(), 32, 64), first) << "the outer one again";
  }
  EXPECT_EQ(cpu::constant_packed_weight(held.data(), 32, 64), nullptr) << "the scope closed";
}

// generate()'s scope inside a longer one over the same memory (a command's batch loop, the
// server's kept copies) uses that one's packs: a weight is packed once for the whole run.
TEST(ConstantWeightsScope, AScopeWithinOneOverItsMemoryKeepsItsPacks) {
  if (!cpu::packed_linear_runs()) GTEST_SKIP() << kNoPackedKernel;
  std::vector<float> held(64 * 32, 0.5f);
  const size_t bytes = held.size() * sizeof(float);
  const ConstantWeights kept(held.data(), bytes);
  const cpu::PackedWeight* first = nullptr;
  {
    const ConstantWeightsScope run(kept);
    const ConstantWeightsScope call(held.data(), bytes);
    first = cpu::constant_packed_weight(held.data(), 32, 64);
    ASSERT_NE(first, nullptr);
  }
  {
    const ConstantWeightsScope run(kept);
    const ConstantWeightsScope call(held.data(), bytes);
    EXPECT_EQ(cpu::constant_packed_weight(held.data(), 32, 64), first) << "packed again";
  }
  {
    const ConstantWeightsScope call(held.data(), bytes);
    EXPECT_NE(cpu::constant_packed_weight(held.data(), 32, 64), first)
        << "a scope alone keeps its own";
  }
}

// linear_forward multiplies by the pack inside a scope: a weight changed behind the scope's
// back (what a scope forbids) shows which copy it read.
TEST(ConstantWeightsScope, LinearForwardReadsThePack) {
  if (!cpu::packed_linear_runs()) GTEST_SKIP() << kNoPackedKernel;
  const PackedProduct p{64, 40, 50};
  PackedOperands o(p, 5);
  const std::vector<float> expected = o.packed_product(p, true);
  std::vector<float> y(size_t(p.rows * p.out));
  const auto forward = [&] {
    linear_forward(testing::on_cpu(o.x, {p.rows, p.in}), testing::on_cpu(o.w, {p.out, p.in}),
                   testing::on_cpu(o.b, {p.out}), testing::on_cpu(y, {p.rows, p.out}));
  };
  {
    const ConstantWeightsScope scope(o.w.data(), o.w.size() * sizeof(float));
    forward();
    EXPECT_EQ(y, expected);
    o.w[0] += 1.0f;
    forward();
    EXPECT_EQ(y, expected) << "the pack made on first use";
  }
  forward();
  EXPECT_NE(y, expected) << "outside the scope the weight is read as it is";
}

}  // namespace
}  // namespace precis
