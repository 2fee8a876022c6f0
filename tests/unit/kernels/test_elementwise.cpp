// elementwise (kernels/elementwise.h) on every backend. Each result is one float operation per
// element, which IEEE rounds correctly, so it equals the double result rounded to float
// exactly. No backward: the model's backward calls these same ops. The CUDA twins in bf16/fp16
// against the CPU on the same rounded values.
#include <random>
#include <vector>

#include "precis/kernels/elementwise.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

class ElementwiseKernel : public KernelTest {};

}  // namespace

TEST_P(ElementwiseKernel, AddIntoAndScale) {
  Tensor a = on_device(std::vector<float>{1, 2, 3}, {3}), b = on_device(std::vector<float>{10, 20, 30}, {3});
  add_into(a, b);
  EXPECT_EQ(to_host(b), (std::vector<float>{11, 22, 33}));
  scale_in_place(b, 0.5f);
  EXPECT_EQ(to_host(b), (std::vector<float>{5.5f, 11, 16.5f}));
  Tensor c = filled({4});
  EXPECT_THROW(add_into(a, c), Error);
}

TEST_P(ElementwiseKernel, OddShapesAreExactAndMayAlias) {
  std::mt19937 rng(40);
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    const Shape shape{s.rows, s.cols};
    const int64_t n = shape.numel();
    std::vector<float> a = random_floats(n, rng, -3.0f, 3.0f), b = random_floats(n, rng, -3.0f, 3.0f);
    std::vector<float> sum(static_cast<size_t>(n)), product(static_cast<size_t>(n)), scaled(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      sum[i] = float(double(a[i]) + double(b[i]));
      product[i] = float(double(a[i]) * double(b[i]));
      scaled[i] = float(double(a[i]) * 0.3f);
    }
    Tensor at = on_device(a, shape), bt = on_device(b, shape), out = filled(shape, 7.0f);
    add(at, bt, out);
    EXPECT_EQ(to_host(out), sum) << "add";
    multiply(at, bt, out);
    EXPECT_EQ(to_host(out), product) << "multiply";
    Tensor into = on_device(b, shape);
    add_into(at, into);
    EXPECT_EQ(to_host(into), sum) << "add_into";
    Tensor s_t = on_device(a, shape);
    scale_in_place(s_t, 0.3f);
    EXPECT_EQ(to_host(s_t), scaled) << "scale_in_place";
    // out may alias a or b.
    Tensor alias_a = on_device(a, shape);
    add(alias_a, bt, alias_a);
    EXPECT_EQ(to_host(alias_a), sum) << "add into a";
    Tensor alias_b = on_device(b, shape);
    multiply(at, alias_b, alias_b);
    EXPECT_EQ(to_host(alias_b), product) << "multiply into b";
  }
  Tensor three = filled({3}), four = filled({4});
  EXPECT_THROW(add(three, four, three), Error);
  EXPECT_THROW(multiply(three, three, four), Error);
}

INSTANTIATE_KERNEL_TEST(ElementwiseKernel);

// The 16-bit twins (bf16, fp16) against the CPU's fp32 ops on the same rounded values, with the
// fp32 test's aliasing cases, and tensors of mixed dtypes refused.
class ElementwiseKernel16 : public HalfKernelTest {};

TEST_P(ElementwiseKernel16, EachOpIsTheFp32ResultRoundedOnce) {
  std::mt19937 rng(41);
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    const Shape shape{s.rows, s.cols};
    const int64_t n = shape.numel();
    std::vector<float> a = random_floats(n, rng, -3.0f, 3.0f), b = random_floats(n, rng, -3.0f, 3.0f);
    Tensor at = on_device_16(a, shape), bt = on_device_16(b, shape), out = filled_16(shape, 7.0f);
    std::vector<float> sum(static_cast<size_t>(n)), product(static_cast<size_t>(n)), scaled(a);
    add(on_cpu(a, shape), on_cpu(b, shape), on_cpu(sum, shape));
    multiply(on_cpu(a, shape), on_cpu(b, shape), on_cpu(product, shape));
    scale_in_place(on_cpu(scaled, shape), 0.3f);

    add(at, bt, out);
    expect_rounded_from(to_host(out), sum, dtype(), "add");
    multiply(at, bt, out);
    expect_rounded_from(to_host(out), product, dtype(), "multiply");
    Tensor into = on_device_16(b, shape);
    add_into(at, into);
    expect_rounded_from(to_host(into), sum, dtype(), "add_into");
    Tensor s_t = on_device_16(a, shape);
    scale_in_place(s_t, 0.3f);
    expect_rounded_from(to_host(s_t), scaled, dtype(), "scale_in_place");
    // out may alias a or b.
    Tensor alias_a = on_device_16(a, shape);
    add(alias_a, bt, alias_a);
    expect_rounded_from(to_host(alias_a), sum, dtype(), "add into a");
    Tensor alias_b = on_device_16(b, shape);
    multiply(at, alias_b, alias_b);
    expect_rounded_from(to_host(alias_b), product, dtype(), "multiply into b");
  }
}

TEST_P(ElementwiseKernel16, MixedDtypesAreRefused) {
  Tensor half = filled_16({3}), fp32 = filled({3});
  Tensor other_half = half;  // the same bits seen as the other 16-bit type
  other_half.dtype = dtype() == DType::BF16 ? DType::F16 : DType::BF16;
  for (const Tensor& other : {fp32, other_half}) {
    EXPECT_THROW(add(half, other, half), Error) << other.describe();
    EXPECT_THROW(add(half, half, other), Error) << other.describe();
    EXPECT_THROW(add_into(other, half), Error) << other.describe();
    EXPECT_THROW(multiply(other, half, half), Error) << other.describe();
  }
}

INSTANTIATE_HALF_KERNEL_TEST(ElementwiseKernel16);
