// grad_norm (kernels/grad_norm.h): Σ x² in double on every backend, on a ragged length and
// odd shapes, read back or left on the device; the same value for any thread count on the CPU.
#include <random>
#include <vector>

#include "precis/kernels/copy.h"
#include "precis/kernels/grad_norm.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

class GradNormKernel : public KernelTest {};

double sum_of_squares_reference(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += double(v) * v;
  return s;
}

}  // namespace

// Double accumulation: 300001 squares of floats sum to within 1e-12 relative of the exact
// sum (the blocks' order changes only the last bits of a double).
TEST_P(GradNormKernel, SumOfSquaresInDouble) {
  std::mt19937 rng(4);
  std::vector<float> x = random_floats(300001, rng);  // several blocks and a ragged tail
  const double expected = sum_of_squares_reference(x);
  EXPECT_NEAR(sum_of_squares(on_device(x, {int64_t(x.size())})), expected, 1e-12 * expected);
  EXPECT_EQ(sum_of_squares(filled({0})), 0.0);
  std::vector<float> big{3e20f, 4e20f};  // squares overflow float, not double
  EXPECT_DOUBLE_EQ(sum_of_squares(on_device(big, {2})),
                   double(3e20f) * 3e20f + double(4e20f) * 4e20f);
}

TEST_P(GradNormKernel, OddShapes) {
  std::mt19937 rng(42);
  for (OddShape s : odd_shapes()) {
    std::vector<float> x = random_floats(s.rows * s.cols, rng, -5.0f, 5.0f);
    const double expected = sum_of_squares_reference(x);
    EXPECT_NEAR(sum_of_squares(on_device(x, {s.rows, s.cols})), expected, 1e-12 * expected)
        << s.rows << "x" << s.cols;
  }
}

// The training step's form, left where x is: the very value the read-back form returns (on a
// GPU the partials are added in block order on the device instead of the host), 0 for none.
TEST_P(GradNormKernel, IntoTheDeviceGivesTheReadBackValue) {
  std::mt19937 rng(5);
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(65536), int64_t(300001)}) {
    std::vector<float> x = random_floats(n, rng);
    const Tensor t = on_device(x, {n});
    const Tensor total = on_device(std::vector<double>{-1.0}, {1});
    sum_of_squares_into(t, total);
    double back = 0.0;
    copy(total, Tensor{&back, Shape{1}, DType::F64, Device::cpu()});
    EXPECT_EQ(back, sum_of_squares(t)) << n;
  }
  EXPECT_THROW(sum_of_squares_into(filled({4}), filled({1})), Error);  // the total is one F64
}

INSTANTIATE_KERNEL_TEST(GradNormKernel);

TEST(GradNormCpu, SameValueForAnyThreadCount) {
  std::mt19937 rng(4);
  std::vector<float> x = random_floats(300001, rng);
  Tensor t{x.data(), Shape{int64_t(x.size())}, DType::F32, Device::cpu()};
  auto run = [&] { return sum_of_squares(t); };
  expect_same_for_thread_counts(run, {2, 3, 8});
}
