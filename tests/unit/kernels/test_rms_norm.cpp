// rms_norm (kernels/rms_norm.h), T5's LayerNorm: forward and backward on every backend against
// a double reference of T5LayerNorm and central differences of it; dweight accumulates, dx
// overwrites and may alias dy; the same bits for any thread count on the CPU. The CUDA twin in
// bf16 and fp16 against the CPU op on the same rounded values (RmsNormKernel16).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernel_test.h"
#include "norm_rows.h"
#include "precis/kernels/convert.h"
#include "precis/kernels/rms_norm.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

// y = w ⊙ x / sqrt(mean(x²) + eps) per row, in double.
RefVec rms_norm_reference(const RefVec& x, const RefVec& w, int64_t rows, int64_t cols, double eps) {
  RefVec y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double squares = 0;
    for (int64_t c = 0; c < cols; ++c) squares += x[r * cols + c] * x[r * cols + c];
    const double s = 1 / std::sqrt(squares / cols + eps);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = w[c] * (x[r * cols + c] * s);
  }
  return y;
}

class RmsNormKernel : public KernelTest {
 protected:
  // T5's eps, 1e-6. dx starts at 3 (overwritten), dweight at 1 (added to).
  void check(int64_t rows, int64_t cols, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> x = random_floats(rows * cols, rng, -2.0f, 3.0f),
                       w = random_floats(cols, rng, 0.5f, 1.5f), G = random_floats(rows * cols, rng);
    for (int64_t c = 0; c < cols; ++c) x[c] = 0.01f * x[c];  // a row of small values: rstd ~ 60
    const float eps = 1e-6f;
    const Shape shape{rows, cols};
    Tensor xt = on_device(x, shape), wt = on_device(w, {cols}), y = filled(shape),
           rstd = filled({rows});
    rms_norm_forward(xt, wt, eps, y, rstd);
    const RefVec xd = to_double(x), wd = to_double(w), g = to_double(G);
    expect_near_reference(to_host(y), rms_norm_reference(xd, wd, rows, cols, eps), "forward");
    std::vector<float> rstd_host = to_host(rstd);
    for (int64_t r = 0; r < rows; ++r) {
      double squares = 0;
      for (int64_t c = 0; c < cols; ++c) squares += xd[r * cols + c] * xd[r * cols + c];
      const double expected = 1 / std::sqrt(squares / cols + eps);
      EXPECT_NEAR(rstd_host[r], expected, kFp32Tolerance * expected) << "rstd of row " << r;
    }

    Tensor Gt = on_device(G, shape), dx = filled(shape, 3.0f), dw = filled({cols}, 1.0f);
    rms_norm_backward(Gt, xt, wt, rstd, dx, dw);
    auto loss_x = [&](const RefVec& v) { return dot_product(g, rms_norm_reference(v, wd, rows, cols, eps)); };
    auto loss_w = [&](const RefVec& v) { return dot_product(g, rms_norm_reference(xd, v, rows, cols, eps)); };
    // The small row's dx is ~60 times its dy: the bound is relative to that, as everywhere.
    expect_near_reference(to_host(dx), finite_difference_gradient(loss_x, xd), "dx (=)");
    expect_near_reference(to_host(dw), finite_difference_gradient(loss_w, wd), "dweight (+=)", 1.0);

    // dx may alias dy; dweight adds the same amount again.
    Tensor inplace = on_device(G, shape);
    rms_norm_backward(inplace, xt, wt, rstd, inplace, dw);
    EXPECT_EQ(to_host(inplace), to_host(dx));
    std::vector<float> twice = to_host(dw);
    for (size_t c = 0; c < twice.size(); ++c) twice[c] = (twice[c] - 1.0f) / 2.0f;
    expect_near_reference(twice, finite_difference_gradient(loss_w, wd), "dweight, half of two");

    // The 16-bit copy a mixed-precision stream takes of y, in the same pass: convert's bits,
    // with y unchanged.
    for (DType t : {DType::BF16, DType::F16}) {
      Tensor y2 = filled(shape), y16 = filled_as(shape, t), y_converted = filled_as(shape, t);
      rms_norm_forward(xt, wt, eps, y2, filled({rows}), y16);
      convert(y, y_converted);
      EXPECT_EQ(to_host(y2), to_host(y)) << dtype_name(t);
      EXPECT_EQ(to_host(y16), to_host(y_converted)) << dtype_name(t);
    }
  }
};

}  // namespace

TEST_P(RmsNormKernel, ForwardAndBackwardMatchTheReference) { check(2 * 3, 8, 7); }

TEST_P(RmsNormKernel, OddShapes) {
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    check(s.rows, s.cols, uint32_t(s.rows * 1000 + s.cols));
  }
}

TEST_P(RmsNormKernel, RejectsMismatchedShapes) {
  Tensor x = filled({3, 37}, 1.0f), w = filled({36}, 1.0f), y = filled({3, 37}), rstd = filled({3});
  EXPECT_THROW(rms_norm_forward(x, w, 1e-6f, y, rstd), Error);
  Tensor w37 = filled({37}, 1.0f), short_rstd = filled({2});
  EXPECT_THROW(rms_norm_forward(x, w37, 1e-6f, y, short_rstd), Error);
  Tensor dx = filled({3, 36}), dw = filled({37});
  EXPECT_THROW(rms_norm_backward(x, x, w37, rstd, dx, dw), Error);
}

// Rows wider than a block's threads (a CUDA row block strides 9 times) and more columns than
// the emulated grid's threads (the weight gradient's grid-stride loop wraps).
TEST_P(RmsNormKernel, WideRows) { check(2, 1031, 11); }

// dweight sums each column over the rows in double on every backend (the CUDA twin in chunks of
// 64 rows, then the chunks: five here): given the same rstd, it rounds to the CPU's bits.
TEST_P(RmsNormKernel, WeightGradientIsTheCpuBits) {
  std::mt19937 rng(12);
  auto [rows, cols, x, G, w] = NormRows(300, 37, rng);
  const size_t n = static_cast<size_t>(rows * cols);
  std::vector<float> y(n), rstd(static_cast<size_t>(rows)), dx(n),
      dw(static_cast<size_t>(cols), 0.5f);
  rms_norm_forward(on_cpu(x, {rows, cols}), on_cpu(w, {cols}), 1e-6f, on_cpu(y, {rows, cols}),
                   on_cpu(rstd, {rows}));
  rms_norm_backward(on_cpu(G, {rows, cols}), on_cpu(x, {rows, cols}), on_cpu(w, {cols}),
                    on_cpu(rstd, {rows}), on_cpu(dx, {rows, cols}), on_cpu(dw, {cols}));
  Tensor dwt = filled({cols}, 0.5f), dxt = filled({rows, cols});
  rms_norm_backward(on_device(G, {rows, cols}), on_device(x, {rows, cols}), on_device(w, {cols}),
                    on_device(rstd, {rows}), dxt, dwt);
  EXPECT_EQ(to_host(dwt), dw);
}

INSTANTIATE_KERNEL_TEST(RmsNormKernel);

TEST(RmsNormCpu, SameBitsForAnyThreadCount) {
  std::mt19937 rng(32);
  NormRows r(1517, 300, rng);  // named, as in LayerNormCpu's twin of this test
  std::vector<float> rstd = r.per_row(), y = r.like_x();
  rms_norm_forward(r.x_on_cpu(), r.weight_on_cpu(), 1e-6f, on_cpu(y, {r.rows, r.cols}),
                   on_cpu(rstd, {r.rows}));
  auto run = [&] {
    std::vector<float> dx = r.like_x(), dw = r.like_weight();
    rms_norm_backward(r.dy_on_cpu(), r.x_on_cpu(), r.weight_on_cpu(), on_cpu(rstd, {r.rows}),
                      on_cpu(dx, {r.rows, r.cols}), on_cpu(dw, {r.cols}));
    return std::vector<std::vector<float>>{dx, dw};
  };
  expect_same_for_thread_counts(run, {2, 3, 7});
}

// The 16-bit twins (bf16, fp16) against the CPU's fp32 op on the same rounded x and dy, with the
// same fp32 weight and T5's eps: y and dx are the CPU's rounded once; rstd and dweight (fp32,
// added to 1) are the CPU's within the fp32 tolerance. y may alias x and dx may alias dy, with
// the same bits as out of place.
class RmsNormKernel16 : public HalfKernelTest {
 protected:
  void check(int64_t rows, int64_t cols, uint32_t seed) {
    std::mt19937 rng(seed);
    const Shape shape{rows, cols};
    const size_t n = size_t(rows * cols), r = size_t(rows), c = size_t(cols);
    std::vector<float> x = random_floats(rows * cols, rng, -2.0f, 3.0f),
                       w = random_floats(cols, rng, 0.5f, 1.5f), G = random_floats(rows * cols, rng);
    for (size_t i = 0; i < c; ++i) x[i] = 0.01f * x[i];  // a row of small values: rstd ~ 60
    const float eps = 1e-6f;
    Tensor xt = on_device_16(x, shape), Gt = on_device_16(G, shape), wt = on_device(w, {cols});

    std::vector<float> y(n), rstd(r), dx(n), dw(c, 1.0f);
    rms_norm_forward(on_cpu(x, shape), on_cpu(w, {cols}), eps, on_cpu(y, shape),
                     on_cpu(rstd, {rows}));
    rms_norm_backward(on_cpu(G, shape), on_cpu(x, shape), on_cpu(w, {cols}), on_cpu(rstd, {rows}),
                      on_cpu(dx, shape), on_cpu(dw, {cols}));

    Tensor yt = filled_16(shape, 7.0f), rstdt = filled({rows});
    rms_norm_forward(xt, wt, eps, yt, rstdt);
    expect_rounded_from(to_host(yt), y, dtype(), "y");
    expect_near_reference(to_host(rstdt), to_double(rstd), "rstd");

    Tensor dxt = filled_16(shape, 3.0f), dwt = filled({cols}, 1.0f);
    rms_norm_backward(Gt, xt, wt, rstdt, dxt, dwt);
    expect_rounded_from(to_host(dxt), dx, dtype(), "dx");
    expect_near_reference(to_host(dwt), to_double(dw), "dweight (+=)");

    Tensor x_inplace = on_device_16(x, shape), rstd2 = filled({rows});
    rms_norm_forward(x_inplace, wt, eps, x_inplace, rstd2);
    EXPECT_EQ(to_host(x_inplace), to_host(yt)) << "y in place";
    Tensor dy_inplace = on_device_16(G, shape), dw2 = filled({cols}, 1.0f);
    rms_norm_backward(dy_inplace, xt, wt, rstdt, dy_inplace, dw2);
    EXPECT_EQ(to_host(dy_inplace), to_host(dxt)) << "dx in place";
    EXPECT_EQ(to_host(dw2), to_host(dwt)) << "dweight with dx in place";
  }
};

TEST_P(RmsNormKernel16, OddShapes) {
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    check(s.rows, s.cols, uint32_t(s.rows * 1000 + s.cols));
  }
}

// As RmsNormKernel.WideRows: the row blocks stride, the weight gradient's loop wraps.
TEST_P(RmsNormKernel16, WideRows) { check(2, 1031, 11); }

// The 16-bit tensors of one dtype (bf16 bits are not fp16's), the weight, rstd and dweight F32;
// the error names the tensor.
TEST_P(RmsNormKernel16, RejectsMixedDtypes) {
  const Shape shape{3, 37};
  Tensor x = filled_16(shape, 1.0f), y = filled_16(shape), w = filled({37}, 1.0f),
         rstd = filled({3}), dw = filled({37});
  Tensor other = filled_16(shape), y32 = filled(shape), w16 = filled_16({37}, 1.0f),
         rstd16 = filled_16({3});
  other.dtype = other_16();  // the same bits, the other type
  auto forward = [&](Tensor w_, Tensor y_, Tensor rstd_) {
    return [=] { rms_norm_forward(x, w_, 1e-6f, y_, rstd_); };
  };
  for (const Tensor& wrong : {other, y32})  // y in the other 16-bit type, or in fp32
    EXPECT_CONTAINS(error_of(forward(w, wrong, rstd)), "y " + wrong.describe());
  EXPECT_CONTAINS(error_of(forward(w16, y, rstd)), "weight " + w16.describe());
  EXPECT_CONTAINS(error_of(forward(w, y, rstd16)), "rstd " + rstd16.describe());
  auto backward = [&](Tensor dy_, Tensor rstd_, Tensor dx_, Tensor dw_) {
    return [=] { rms_norm_backward(dy_, x, w, rstd_, dx_, dw_); };
  };
  EXPECT_CONTAINS(error_of(backward(other, rstd, y, dw)), "dy " + other.describe());
  for (const Tensor& wrong : {other, y32})  // dx in the other 16-bit type, or in fp32
    EXPECT_CONTAINS(error_of(backward(x, rstd, wrong, dw)), "dx " + wrong.describe());
  EXPECT_CONTAINS(error_of(backward(x, rstd16, y, dw)), "rstd " + rstd16.describe());
  EXPECT_CONTAINS(error_of(backward(x, rstd, y, w16)), "dweight " + w16.describe());
}

INSTANTIATE_HALF_KERNEL_TEST(RmsNormKernel16);
