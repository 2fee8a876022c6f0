// elementwise (kernels/elementwise.h) on every backend. Each result is one float operation per
// element, which IEEE rounds correctly, so it equals the double result rounded to float
// exactly. No backward: the model's backward calls these same ops. The CUDA twins in bf16/fp16
// against the CPU on the same rounded values.
#include <random>
#include <vector>

#include "precis/kernels/elementwise.h"

#include "kernel_test.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

// Each op's result on a and b, read back: add and multiply out of place, add_into b, a scaled
// by 0.3 in place, and add and multiply with the output aliasing a or b.
struct EachOp {
  std::vector<float> sum, product, sum_into_b, scaled, sum_into_a, product_into_b;
};

// What the fp32 op test (ElementwiseKernel) and the 16-bit twins' (ElementwiseKernel16) both run,
// on tensors of the dtype each names (a and b rounded in place to a 16-bit one, so that a
// reference reads the numbers the tensors hold); each checks against its own reference.
template <class Fixture>
class ElementwiseTest : public Fixture {
 protected:
  EachOp run_each_op(std::vector<float>& a, std::vector<float>& b, Shape shape, DType dtype) {
    Tensor at = this->on_device_as(a, shape, dtype), bt = this->on_device_as(b, shape, dtype),
           out = this->filled_as(shape, dtype, 7.0f);
    EachOp got;
    add(at, bt, out);
    got.sum = this->to_host(out);
    multiply(at, bt, out);
    got.product = this->to_host(out);
    Tensor into = this->on_device_as(b, shape, dtype);
    add_into(at, into);
    got.sum_into_b = this->to_host(into);
    Tensor scaled = this->on_device_as(a, shape, dtype);
    scale_in_place(scaled, 0.3f);
    got.scaled = this->to_host(scaled);
    Tensor alias_a = this->on_device_as(a, shape, dtype);
    add(alias_a, bt, alias_a);
    got.sum_into_a = this->to_host(alias_a);
    Tensor alias_b = this->on_device_as(b, shape, dtype);
    multiply(at, alias_b, alias_b);
    got.product_into_b = this->to_host(alias_b);
    return got;
  }
};

class ElementwiseKernel : public ElementwiseTest<KernelTest> {};

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

// Only F32 (and on CUDA BF16 and F16) are elements these ops compute on: the CUDA twin takes
// the dtype and refuses the rest itself.
TEST_P(ElementwiseKernel, IntegerTensorsAreRefused) {
  Tensor ids = on_device(std::vector<int32_t>{1, 2, 3}, {3});
  EXPECT_CONTAINS(error_of([&] { scale_in_place(ids, 2.0f); }), "I32");
  EXPECT_CONTAINS(error_of([&] { add(ids, ids, ids); }), "I32");
  EXPECT_CONTAINS(error_of([&] { add_into(ids, ids); }), "I32");
}

TEST_P(ElementwiseKernel, OddShapesAreExactAndMayAlias) {
  for_each_odd_shape(40, [&](Shape shape, std::mt19937& rng) {
    const int64_t n = shape.numel();
    std::vector<float> a = random_floats(n, rng, -3.0f, 3.0f), b = random_floats(n, rng, -3.0f, 3.0f);
    std::vector<float> sum(static_cast<size_t>(n)), product(static_cast<size_t>(n)), scaled(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      sum[i] = float(double(a[i]) + double(b[i]));
      product[i] = float(double(a[i]) * double(b[i]));
      scaled[i] = float(double(a[i]) * 0.3f);
    }
    const EachOp got = run_each_op(a, b, shape, DType::F32);
    EXPECT_EQ(got.sum, sum) << "add";
    EXPECT_EQ(got.product, product) << "multiply";
    EXPECT_EQ(got.sum_into_b, sum) << "add_into";
    EXPECT_EQ(got.scaled, scaled) << "scale_in_place";
    EXPECT_EQ(got.sum_into_a, sum) << "add into a";
    EXPECT_EQ(got.product_into_b, product) << "multiply into b";
  });
  Tensor three = filled({3}), four = filled({4});
  EXPECT_THROW(add(three, four, three), Error);
  EXPECT_THROW(multiply(three, three, four), Error);
}

// With an fp32 branch, add_to_fp32 is add; on the CPU a 16-bit branch is refused by name (the
// CPU holds no 16-bit activations).
TEST_P(ElementwiseKernel, AddToFp32OfFp32IsAdd) {
  Tensor a = on_device(std::vector<float>{1, 2, 3}, {3}),
         b = on_device(std::vector<float>{10, 20, 30}, {3});
  Tensor out = filled({3});
  add_to_fp32(a, b, out);
  EXPECT_EQ(to_host(out), (std::vector<float>{11, 22, 33}));
  std::vector<uint16_t> half_bits(3, 0x3F80);  // bf16 1.0
  const Tensor half{half_bits.data(), Shape{3}, DType::BF16, Device::cpu()};
  if (device().is_cpu())
    EXPECT_CONTAINS(error_of([&] { add_to_fp32(a, half, out); }), "CUDA backend's");
  EXPECT_THROW(add_to_fp32(a, b, filled({4})), Error);
}

INSTANTIATE_KERNEL_TEST(ElementwiseKernel);

// The 16-bit twins (bf16, fp16) against the CPU's fp32 ops on the same rounded values, with the
// fp32 test's aliasing cases, and tensors of mixed dtypes refused.
class ElementwiseKernel16 : public ElementwiseTest<HalfKernelTest> {};

TEST_P(ElementwiseKernel16, EachOpIsTheFp32ResultRoundedOnce) {
  for_each_odd_shape(41, [&](Shape shape, std::mt19937& rng) {
    const int64_t n = shape.numel();
    std::vector<float> a = random_floats(n, rng, -3.0f, 3.0f), b = random_floats(n, rng, -3.0f, 3.0f);
    const EachOp got = run_each_op(a, b, shape, dtype());  // a and b now hold the rounded values
    std::vector<float> sum(static_cast<size_t>(n)), product(static_cast<size_t>(n)), scaled(a);
    add(on_cpu(a, shape), on_cpu(b, shape), on_cpu(sum, shape));
    multiply(on_cpu(a, shape), on_cpu(b, shape), on_cpu(product, shape));
    scale_in_place(on_cpu(scaled, shape), 0.3f);
    expect_rounded_from(got.sum, sum, dtype(), "add");
    expect_rounded_from(got.product, product, dtype(), "multiply");
    expect_rounded_from(got.sum_into_b, sum, dtype(), "add_into");
    expect_rounded_from(got.scaled, scaled, dtype(), "scale_in_place");
    expect_rounded_from(got.sum_into_a, sum, dtype(), "add into a");
    expect_rounded_from(got.product_into_b, product, dtype(), "multiply into b");
  });
}

TEST_P(ElementwiseKernel16, MixedDtypesAreRefused) {
  Tensor half = filled_16({3}), fp32 = filled({3});
  Tensor other_half = half;  // the same bits seen as the other 16-bit type
  other_half.dtype = other_16();
  for (const Tensor& other : {fp32, other_half}) {
    EXPECT_THROW(add(half, other, half), Error) << other.describe();
    EXPECT_THROW(add(half, half, other), Error) << other.describe();
    EXPECT_THROW(add_into(other, half), Error) << other.describe();
    EXPECT_THROW(multiply(other, half, half), Error) << other.describe();
  }
}

// An fp32 stream plus a 16-bit branch: the branch widened exactly and added in fp32 (what a
// conversion then an fp32 add give), out aliasing a or not; a 16-bit stream or output refused.
TEST_P(ElementwiseKernel16, AddToFp32WidensTheBranchExactly) {
  for_each_odd_shape(42, [&](Shape shape, std::mt19937& rng) {
    const int64_t n = shape.numel();
    std::vector<float> a = random_floats(n, rng, -3.0f, 3.0f),
                       b = random_floats(n, rng, -3.0f, 3.0f);
    Tensor branch = on_device_16(b, shape);  // b now holds the rounded values
    std::vector<float> sum(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) sum[size_t(i)] = a[size_t(i)] + b[size_t(i)];
    Tensor stream = on_device(a, shape), out = filled(shape);
    add_to_fp32(stream, branch, out);
    EXPECT_EQ(to_host(out), sum);
    add_to_fp32(stream, branch, stream);
    EXPECT_EQ(to_host(stream), sum) << "into a";
  });
  Tensor half = filled_16({3}), fp32 = filled({3});
  EXPECT_THROW(add_to_fp32(half, half, fp32), Error);
  EXPECT_THROW(add_to_fp32(fp32, half, half), Error);
  EXPECT_THROW(add_to_fp32(fp32, filled_16({4}), fp32), Error);
}

INSTANTIATE_HALF_KERNEL_TEST(ElementwiseKernel16);
