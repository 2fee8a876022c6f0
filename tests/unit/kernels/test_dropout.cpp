// dropout (kernels/dropout.h) on every backend: the keep decision is the documented pure
// function of (seed, stream, index), so the reference draws the same Philox bits element by
// element; the keep rate, forward/backward agreement, aliasing, a data-parallel shard's
// numbering, and the same mask for any thread count on the CPU; the CUDA twin in bf16/fp16
// against the CPU on the same rounded values. (Philox itself: test_rng.cpp.)
#include <cmath>
#include <vector>

#include "precis/core/rng.h"
#include "precis/kernels/dropout.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

std::vector<float> dropout_ramp(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = 0.001f * float(i % 1000) + 1.0f;
  return v;
}

// y[i] = x[i] / (1 - p) where random_bits(seed, stream, first + i) >= threshold, else 0.
std::vector<float> dropout_reference(const std::vector<float>& x, const DropoutSpec& spec,
                                     uint64_t first) {
  const float scale = 1.0f / float(1.0 - double(spec.p));
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const bool keep = random_bits(spec.seed, spec.stream, first + i) >= dropout_threshold(spec.p);
    y[i] = keep ? x[i] * scale : 0.0f;
  }
  return y;
}

class DropoutKernel : public KernelTest {};

}  // namespace

TEST_P(DropoutKernel, SameSpecSameMaskOtherStreamsOrSeedsDiffer) {
  const int64_t n = 10000;
  std::vector<float> xh = dropout_ramp(n);
  Tensor x = on_device(xh, {n}), a = filled({n}), b = filled({n}), c = filled({n}), d = filled({n});
  DropoutSpec spec{0.1f, 42, dropout_stream(0, 0, 0, 0)};
  dropout_forward(x, spec, a);
  dropout_forward(x, spec, b);
  std::vector<float> ah = to_host(a);
  EXPECT_EQ(ah, to_host(b));
  dropout_forward(x, {0.1f, 42, dropout_stream(0, 0, 0, 1)}, c);
  dropout_forward(x, {0.1f, 43, spec.stream}, d);
  EXPECT_NE(ah, to_host(c));
  EXPECT_NE(ah, to_host(d));
  // The decision is the documented pure function of (seed, stream, index).
  const float scale = 1.0f / float(1.0 - double(0.1f));
  for (int64_t i = 0; i < n; ++i) {
    bool keep = random_bits(42, spec.stream, uint64_t(i)) >= dropout_threshold(0.1f);
    EXPECT_EQ(ah[i], keep ? xh[i] * scale : 0.0f) << i;
  }
}

TEST_P(DropoutKernel, KeepRateIsOneMinusP) {
  const int64_t n = 1 << 20;
  Tensor x = filled({n}, 1.0f), y = filled({n});
  for (float p : {0.1f, 0.5f, 0.9f}) {
    dropout_forward(x, {p, 7, 11}, y);
    std::vector<float> yh = to_host(y);
    int64_t kept = 0;
    for (float v : yh) kept += v != 0.0f;
    double rate = double(kept) / double(n);
    double sigma = std::sqrt(p * (1 - p) / double(n));
    EXPECT_NEAR(rate, 1.0 - p, 5 * sigma) << "p = " << p;
    // Kept values are scaled by 1/(1-p) computed in float, as torch does.
    for (float v : yh)
      if (v != 0.0f) {
        EXPECT_EQ(v, 1.0f / float(1.0 - double(p)));
        break;
      }
  }
}

TEST_P(DropoutKernel, IdentityAtZeroAndZerosAtOne) {
  std::vector<float> xh = dropout_ramp(100);
  Tensor x = on_device(xh, {100}), y = filled({100}), z = filled({100}, 5.0f);
  dropout_forward(x, {}, y);
  EXPECT_EQ(to_host(y), xh);
  dropout_forward(x, {1.0f, 1, 1}, z);
  EXPECT_EQ(to_host(z), std::vector<float>(100, 0.0f));
  EXPECT_THROW(dropout_forward(x, {1.5f, 1, 1}, y), Error);
  Tensor wrong = filled({99});
  EXPECT_THROW(dropout_forward(x, {0.5f, 1, 1}, wrong), Error);
}

TEST_P(DropoutKernel, BackwardUsesTheForwardMaskAndMayAlias) {
  const int64_t n = 5000;
  DropoutSpec spec{0.3f, 5, dropout_stream(9, 2, 4, 1)};
  std::vector<float> xh = dropout_ramp(n);
  Tensor x = on_device(xh, {n}), y = filled({n}), dy = filled({n}, 2.0f), dx = filled({n});
  dropout_forward(x, spec, y);
  dropout_backward(dy, spec, dx);
  std::vector<float> yh = to_host(y), dxh = to_host(dx);
  const float scale = 1.0f / float(1.0 - double(0.3f));
  for (int64_t i = 0; i < n; ++i) {
    // y = x·keep·scale is linear: dL/dx = dy·keep·scale, zero exactly where y is.
    EXPECT_EQ(dxh[i] == 0.0f, yh[i] == 0.0f) << i;
    if (yh[i] != 0.0f) {
      EXPECT_EQ(dxh[i], 2.0f * scale);
    }
  }
  Tensor inplace = filled({n}, 2.0f);
  dropout_backward(inplace, spec, inplace);
  EXPECT_EQ(to_host(inplace), dxh);
  Tensor x_inplace = on_device(xh, {n});
  dropout_forward(x_inplace, spec, x_inplace);
  EXPECT_EQ(to_host(x_inplace), yh);
}

// Forward and backward on the odd shapes against the reference, bit for bit (one float
// product per kept element).
TEST_P(DropoutKernel, OddShapesMatchTheReference) {
  std::mt19937 rng(43);
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    const Shape shape{s.rows, s.cols};
    std::vector<float> x = random_floats(shape.numel(), rng), dy = random_floats(shape.numel(), rng);
    const DropoutSpec spec{0.35f, 1000 + uint64_t(s.cols), dropout_stream(1, 0, 2, 3)};
    Tensor y = filled(shape), dx = filled(shape, 7.0f);
    dropout_forward(on_device(x, shape), spec, y);
    EXPECT_EQ(to_host(y), dropout_reference(x, spec, 0)) << "forward";
    dropout_backward(on_device(dy, shape), spec, dx);
    EXPECT_EQ(to_host(dx), dropout_reference(dy, spec, 0)) << "backward";
  }
}

// A shard holding rows 2..4 of a 7-row batch draws what those rows draw in the whole batch.
TEST_P(DropoutKernel, AShardNumbersItsMaskAsTheWholeBatch) {
  std::mt19937 rng(44);
  const int64_t rows = 7, cols = 37;
  std::vector<float> x = random_floats(rows * cols, rng);
  const DropoutSpec whole{0.4f, 8, 9};
  Tensor y_whole = filled({rows, cols});
  dropout_forward(on_device(x, {rows, cols}), whole, y_whole);
  std::vector<float> shard_x(x.begin() + 2 * cols, x.begin() + 5 * cols);
  DropoutSpec shard = whole;
  shard.first_row = 2;
  shard.rows = 3;
  Tensor y_shard = filled({3, cols}), dx_shard = filled({3, cols});
  dropout_forward(on_device(shard_x, {3, cols}), shard, y_shard);
  std::vector<float> expected = dropout_reference(shard_x, whole, 2 * cols);
  EXPECT_EQ(to_host(y_shard), expected);
  std::vector<float> whole_rows = to_host(y_whole);
  EXPECT_EQ(to_host(y_shard), std::vector<float>(whole_rows.begin() + 2 * cols, whole_rows.begin() + 5 * cols));
  dropout_backward(on_device(shard_x, {3, cols}), shard, dx_shard);
  EXPECT_EQ(to_host(dx_shard), expected);
}

INSTANTIATE_KERNEL_TEST(DropoutKernel);

TEST(DropoutCpu, SameMaskForAnyThreadCount) {
  const int64_t n = 100003;  // not a multiple of the parallel chunk
  std::vector<float> x = dropout_ramp(n);
  auto run = [&] {
    std::vector<float> y(static_cast<size_t>(n));
    dropout_forward(Tensor{x.data(), Shape{n}, DType::F32, Device::cpu()}, {0.25f, 77, 88},
                    Tensor{y.data(), Shape{n}, DType::F32, Device::cpu()});
    return y;
  };
  auto one = with_omp_threads(1, run);
  for (int t : {2, 3, 8}) EXPECT_EQ(with_omp_threads(t, run), one) << t << " threads";
}

// The 16-bit twin (bf16, fp16) against the CPU's fp32 dropout on the same rounded values: the
// same Philox mask (zero exactly where the CPU's is), each kept x·scale rounded once; forward
// and backward, in place, a shard's numbering, p = 0 and p = 1, and mixed dtypes refused.
class DropoutKernel16 : public HalfKernelTest {
 protected:
  // The CPU's dropout of `x` (rounded to the 16-bit type already) and the twin's of the same
  // values, compared: rounded once where kept, exactly zero where dropped.
  void expect_cpu_mask(const std::vector<float>& actual, std::vector<float> x, Shape shape,
                       const DropoutSpec& spec, const std::string& what) {
    std::vector<float> reference(x.size());
    dropout_forward(on_cpu(x, shape), spec, on_cpu(reference, shape));
    expect_rounded_from(actual, reference, dtype(), what);
    ASSERT_EQ(actual.size(), reference.size());
    for (size_t i = 0; i < actual.size(); ++i)
      EXPECT_EQ(actual[i] == 0.0f, reference[i] == 0.0f) << what << " element " << i;
  }
};

TEST_P(DropoutKernel16, TheCpuMaskRoundedOnceForwardBackwardAndInPlace) {
  std::mt19937 rng(45);
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    const Shape shape{s.rows, s.cols};
    std::vector<float> x = random_floats(shape.numel(), rng), dy = random_floats(shape.numel(), rng);
    const DropoutSpec spec{0.35f, 1000 + uint64_t(s.cols), dropout_stream(1, 0, 2, 3)};
    Tensor xt = on_device_16(x, shape), dyt = on_device_16(dy, shape);
    Tensor y = filled_16(shape), dx = filled_16(shape, 7.0f);
    dropout_forward(xt, spec, y);
    const std::vector<float> yh = to_host(y);
    expect_cpu_mask(yh, x, shape, spec, "forward");
    dropout_backward(dyt, spec, dx);
    const std::vector<float> dxh = to_host(dx);
    expect_cpu_mask(dxh, dy, shape, spec, "backward");
    // y may alias x, dx may alias dy.
    Tensor x_inplace = on_device_16(x, shape), dy_inplace = on_device_16(dy, shape);
    dropout_forward(x_inplace, spec, x_inplace);
    EXPECT_EQ(to_host(x_inplace), yh) << "forward in place";
    dropout_backward(dy_inplace, spec, dy_inplace);
    EXPECT_EQ(to_host(dy_inplace), dxh) << "backward in place";
  }
}

// A shard holding rows 2..4 of a 7-row batch draws what those rows draw in the whole batch
// (its range starts inside a Philox block).
TEST_P(DropoutKernel16, AShardNumbersItsMaskAsTheWholeBatch) {
  std::mt19937 rng(46);
  const int64_t rows = 7, cols = 37;
  std::vector<float> x = random_floats(rows * cols, rng);
  const DropoutSpec whole{0.4f, 8, 9};
  Tensor y_whole = filled_16({rows, cols});
  dropout_forward(on_device_16(x, {rows, cols}), whole, y_whole);
  std::vector<float> shard_x(x.begin() + 2 * cols, x.begin() + 5 * cols);
  DropoutSpec shard = whole;
  shard.first_row = 2;
  shard.rows = 3;
  Tensor y_shard = filled_16({3, cols}), dx_shard = filled_16({3, cols});
  dropout_forward(on_device_16(shard_x, {3, cols}), shard, y_shard);
  expect_cpu_mask(to_host(y_shard), shard_x, {3, cols}, shard, "shard forward");
  const std::vector<float> whole_rows = to_host(y_whole);
  EXPECT_EQ(to_host(y_shard), std::vector<float>(whole_rows.begin() + 2 * cols, whole_rows.begin() + 5 * cols));
  dropout_backward(on_device_16(shard_x, {3, cols}), shard, dx_shard);
  EXPECT_EQ(to_host(dx_shard), to_host(y_shard)) << "shard backward";
}

TEST_P(DropoutKernel16, IdentityAtZeroZerosAtOneAndMixedDtypesRefused) {
  std::vector<float> xh = dropout_ramp(100);
  Tensor x = on_device_16(xh, {100}), y = filled_16({100}), z = filled_16({100}, 5.0f);
  dropout_forward(x, {}, y);
  EXPECT_EQ(to_host(y), xh);
  dropout_forward(x, {1.0f, 1, 1}, z);
  EXPECT_EQ(to_host(z), std::vector<float>(100, 0.0f));
  Tensor fp32 = filled({100});
  Tensor other_half = y;  // the same bits seen as the other 16-bit type
  other_half.dtype = dtype() == DType::BF16 ? DType::F16 : DType::BF16;
  for (const Tensor& other : {fp32, other_half}) {
    EXPECT_THROW(dropout_forward(x, {0.5f, 1, 1}, other), Error) << other.describe();
    EXPECT_THROW(dropout_backward(other, {0.5f, 1, 1}, y), Error) << other.describe();
  }
}

INSTANTIATE_HALF_KERNEL_TEST(DropoutKernel16);
