// fill (kernels/fill.h) on every backend: zero, a constant, and the normal draws of weight
// initialisation, element i being std times the Box-Muller normal of Philox draws 2i and 2i+1.
#include <cmath>
#include <random>
#include <vector>

#include "precis/core/rng.h"
#include "precis/kernels/fill.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

class FillKernel : public KernelTest {};

// std · sqrt(-2 ln u1) · cos(2π u2), u1 = (a + 1) / 2³² in (0, 1], u2 = b / 2³², in double.
double normal_draw_reference(double std, uint64_t seed, uint64_t stream, uint64_t i) {
  const double a = random_bits(seed, stream, 2 * i), b = random_bits(seed, stream, 2 * i + 1);
  const double u1 = (a + 1.0) / 4294967296.0, u2 = b / 4294967296.0;
  return std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

}  // namespace

TEST_P(FillKernel, NormalDrawsDependOnlyOnTheirIndex) {
  Tensor whole = filled({64}), tail = filled({64}, 7.0f);
  fill_normal(whole, 0.02, 42, 5);
  fill_normal(tail, 0.02, 42, 5, 40);
  std::vector<float> w = to_host(whole), t = to_host(tail);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(t[size_t(i)], 7.0f);
  for (int i = 40; i < 64; ++i) EXPECT_EQ(t[size_t(i)], w[size_t(i)]);
  double sum_sq = 0;
  for (float v : w) sum_sq += double(v) * v;
  EXPECT_NEAR(std::sqrt(sum_sq / 64), 0.02, 0.006);
  fill(whole, 2.5f);
  EXPECT_EQ(to_host(whole)[63], 2.5f);
  zero(whole.slice(0, 10));
  w = to_host(whole);
  EXPECT_EQ(w[9], 0.0f);
  EXPECT_EQ(w[10], 2.5f);
}

// The normal draws are the float rounding of the double formula: the kernel rounds the
// standard normal to float, then std times it to float again, so 2 ulp (1.2e-7) relative.
TEST_P(FillKernel, OddShapesMatchTheReference) {
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    const Shape shape{s.rows, s.cols};
    const int64_t n = shape.numel();
    Tensor x = filled(shape, 9.0f);
    fill_normal(x, 0.05, 7, uint64_t(s.cols), 2);
    std::vector<float> got = to_host(x);
    EXPECT_EQ(got[0], 9.0f);
    EXPECT_EQ(got[1], 9.0f);
    for (int64_t i = 2; i < n; ++i) {
      const double expected = normal_draw_reference(0.05, 7, uint64_t(s.cols), uint64_t(i));
      EXPECT_NEAR(got[i], expected, 1.2e-7 * std::abs(expected) + 1e-30) << i;
    }
    fill(x, -1.25f);
    EXPECT_EQ(to_host(x), std::vector<float>(size_t(n), -1.25f));
    zero(x.slice(1, s.rows));
    std::vector<float> after = to_host(x);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(after[i], i < s.cols ? -1.25f : 0.0f) << i;
  }
  Tensor ids = on_device(std::vector<int32_t>{5, 6, 7}, {3});
  zero(ids);  // any dtype
  std::vector<int32_t> back(3, 1);
  copy(ids, Tensor{back.data(), Shape{3}, DType::I32, Device::cpu()});
  EXPECT_EQ(back, std::vector<int32_t>(3, 0));
}

INSTANTIATE_KERNEL_TEST(FillKernel);
