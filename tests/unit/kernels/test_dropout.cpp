// dropout (kernels/dropout.h) on every backend: the keep decision is the documented pure
// function of (seed, stream, index), so the reference draws the same Philox bits element by
// element; the keep rate, forward/backward agreement, aliasing, a data-parallel shard's
// numbering, and the same mask for any thread count on the CPU; the CUDA twin in bf16/fp16
// against the CPU on the same rounded values. (Philox itself: test_rng.cpp.)
#include <cmath>
#include <random>
#include <utility>
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

// The spec of the odd-shape cases: p = 0.35, a seed per row width, a layer's stream.
DropoutSpec odd_shape_spec(Shape shape) {
  return {0.35f, 1000 + uint64_t(shape[1]), dropout_stream(1, 0, 2, 3)};
}

// Dropout's forward of x and backward of dy, read back.
struct ForwardAndBackward {
  std::vector<float> y, dx;
};

// A data-parallel rank's shard, rows 2..4 of a 7 x 37 batch (a range that starts inside a Philox
// block): its spec is the batch's numbered from the shard's first row, so it must draw the mask
// those rows draw in the whole batch.
struct ShardOfABatch {
  static constexpr int64_t kCols = 37, kFirstRow = 2, kRows = 3;
  DropoutSpec batch, shard;
  std::vector<float> x;           // the shard's rows of the batch's x
  std::vector<float> batch_rows;  // the batch's y at the shard's rows
  ForwardAndBackward own;         // the shard's y, and its dx for dy = x
};

// What the fp32 op test (DropoutKernel) and the 16-bit twin's (DropoutKernel16) both run, on
// tensors of the dtype each names (inputs rounded in place to a 16-bit one, so that a reference
// reads the numbers the tensors hold); each checks the results against its own reference.
template <class Fixture>
class DropoutTest : public Fixture {
 protected:
  ForwardAndBackward forward_and_backward(std::vector<float>& x, std::vector<float>& dy,
                                          Shape shape, const DropoutSpec& spec, DType dtype) {
    Tensor y = this->filled_as(shape, dtype), dx = this->filled_as(shape, dtype, 7.0f);
    dropout_forward(this->on_device_as(x, shape, dtype), spec, y);
    dropout_backward(this->on_device_as(dy, shape, dtype), spec, dx);
    return {this->to_host(y), this->to_host(dx)};
  }

  // p = 0 is the identity on a ramp of 100 values, p = 1 zeros it (into an output of 5s).
  // Returns the ramp on the backend and the identity's output, for the refusals that follow.
  std::pair<Tensor, Tensor> expect_identity_at_zero_and_zeros_at_one(DType dtype) {
    std::vector<float> xh = dropout_ramp(100);
    Tensor x = this->on_device_as(xh, {100}, dtype), y = this->filled_as({100}, dtype),
           z = this->filled_as({100}, dtype, 5.0f);
    dropout_forward(x, {}, y);
    EXPECT_EQ(this->to_host(y), xh);
    dropout_forward(x, {1.0f, 1, 1}, z);
    EXPECT_EQ(this->to_host(z), std::vector<float>(100, 0.0f));
    return {x, y};
  }

  ShardOfABatch dropout_of_a_shard(uint32_t seed, DType dtype) {
    std::mt19937 rng(seed);
    const int64_t rows = 7, cols = ShardOfABatch::kCols, first = ShardOfABatch::kFirstRow,
                  end = first + ShardOfABatch::kRows;
    std::vector<float> x = random_floats(rows * cols, rng);
    ShardOfABatch s;
    s.batch = {0.4f, 8, 9};
    Tensor y_batch = this->filled_as({rows, cols}, dtype);
    dropout_forward(this->on_device_as(x, {rows, cols}, dtype), s.batch, y_batch);
    const std::vector<float> batch_y = this->to_host(y_batch);
    s.batch_rows.assign(batch_y.begin() + first * cols, batch_y.begin() + end * cols);
    s.x.assign(x.begin() + first * cols, x.begin() + end * cols);
    s.shard = s.batch;
    s.shard.first_row = first;
    s.shard.rows = ShardOfABatch::kRows;
    std::vector<float> dy = s.x;
    s.own = forward_and_backward(s.x, dy, {ShardOfABatch::kRows, cols}, s.shard, dtype);
    return s;
  }
};

class DropoutKernel : public DropoutTest<KernelTest> {};

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
  const auto [x, y] = expect_identity_at_zero_and_zeros_at_one(DType::F32);
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
  for_each_odd_shape(43, [&](Shape shape, std::mt19937& rng) {
    std::vector<float> x = random_floats(shape.numel(), rng), dy = random_floats(shape.numel(), rng);
    const DropoutSpec spec = odd_shape_spec(shape);
    const ForwardAndBackward got = forward_and_backward(x, dy, shape, spec, DType::F32);
    EXPECT_EQ(got.y, dropout_reference(x, spec, 0)) << "forward";
    EXPECT_EQ(got.dx, dropout_reference(dy, spec, 0)) << "backward";
  });
}

// A shard holding rows 2..4 of a 7-row batch draws what those rows draw in the whole batch.
TEST_P(DropoutKernel, AShardNumbersItsMaskAsTheWholeBatch) {
  const ShardOfABatch s = dropout_of_a_shard(44, DType::F32);
  const std::vector<float> expected =
      dropout_reference(s.x, s.batch, uint64_t(s.shard.first_row * ShardOfABatch::kCols));
  EXPECT_EQ(s.own.y, expected);
  EXPECT_EQ(s.own.y, s.batch_rows);
  EXPECT_EQ(s.own.dx, expected);
}

INSTANTIATE_KERNEL_TEST(DropoutKernel);

TEST(DropoutCpu, SameMaskForAnyThreadCount) {
  const int64_t n = 100003;  // not a multiple of the parallel chunk
  std::vector<float> x = dropout_ramp(n);
  auto run = [&] {
    std::vector<float> y(static_cast<size_t>(n));
    dropout_forward(on_cpu(x, {n}), {0.25f, 77, 88}, on_cpu(y, {n}));
    return y;
  };
  expect_same_for_thread_counts(run, {2, 3, 8});
}

// The 16-bit twin (bf16, fp16) against the CPU's fp32 dropout on the same rounded values: the
// same Philox mask (zero exactly where the CPU's is), each kept x·scale rounded once; forward
// and backward, in place, a shard's numbering, p = 0 and p = 1, and mixed dtypes refused.
class DropoutKernel16 : public DropoutTest<HalfKernelTest> {
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
  for_each_odd_shape(45, [&](Shape shape, std::mt19937& rng) {
    std::vector<float> x = random_floats(shape.numel(), rng), dy = random_floats(shape.numel(), rng);
    const DropoutSpec spec = odd_shape_spec(shape);
    const ForwardAndBackward got = forward_and_backward(x, dy, shape, spec, dtype());
    expect_cpu_mask(got.y, x, shape, spec, "forward");
    expect_cpu_mask(got.dx, dy, shape, spec, "backward");
    // y may alias x, dx may alias dy.
    Tensor x_inplace = on_device_16(x, shape), dy_inplace = on_device_16(dy, shape);
    dropout_forward(x_inplace, spec, x_inplace);
    EXPECT_EQ(to_host(x_inplace), got.y) << "forward in place";
    dropout_backward(dy_inplace, spec, dy_inplace);
    EXPECT_EQ(to_host(dy_inplace), got.dx) << "backward in place";
  });
}

// A shard holding rows 2..4 of a 7-row batch draws what those rows draw in the whole batch
// (its range starts inside a Philox block).
TEST_P(DropoutKernel16, AShardNumbersItsMaskAsTheWholeBatch) {
  const ShardOfABatch s = dropout_of_a_shard(46, dtype());
  expect_cpu_mask(s.own.y, s.x, {ShardOfABatch::kRows, ShardOfABatch::kCols}, s.shard,
                  "shard forward");
  EXPECT_EQ(s.own.y, s.batch_rows);
  EXPECT_EQ(s.own.dx, s.own.y) << "shard backward";
}

TEST_P(DropoutKernel16, IdentityAtZeroZerosAtOneAndMixedDtypesRefused) {
  const auto [x, y] = expect_identity_at_zero_and_zeros_at_one(dtype());
  Tensor fp32 = filled({100});
  Tensor other_half = y;  // the same bits seen as the other 16-bit type
  other_half.dtype = other_16();
  for (const Tensor& other : {fp32, other_half}) {
    EXPECT_THROW(dropout_forward(x, {0.5f, 1, 1}, other), Error) << other.describe();
    EXPECT_THROW(dropout_backward(other, {0.5f, 1, 1}, y), Error) << other.describe();
  }
}

INSTANTIATE_HALF_KERNEL_TEST(DropoutKernel16);
