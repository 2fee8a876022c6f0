// layernorm (kernels/layernorm.h) forward and backward on every backend, against a double
// reference of torch.nn.LayerNorm and central differences of it; the accumulation rule,
// dx aliasing dy, and the same bits for any thread count on the CPU. The CUDA twin in bf16 and
// fp16 against the CPU op on the same rounded values (LayerNormKernel16).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernel_test.h"
#include "norm_rows.h"
#include "precis/kernels/convert.h"
#include "precis/kernels/layernorm.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

RefVec layernorm_reference(const RefVec& x, const RefVec& w, const RefVec& b, int64_t rows,
                           int64_t cols, double eps) {
  RefVec y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int64_t c = 0; c < cols; ++c) m += x[r * cols + c];
    m /= cols;
    for (int64_t c = 0; c < cols; ++c) v += (x[r * cols + c] - m) * (x[r * cols + c] - m);
    double s = 1 / std::sqrt(v / cols + eps);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = (x[r * cols + c] - m) * s * w[c] + b[c];
  }
  return y;
}

class LayerNormKernel : public KernelTest {
 protected:
  // Forward against the reference, then each gradient against central differences of
  // Σ G ∘ y: dx overwritten (it starts at 3), dweight and dbias added to 1 and 2.
  void check(Shape shape, std::vector<float> x, uint32_t seed) {
    std::mt19937 rng(seed);
    const int64_t cols = shape[shape.rank - 1], rows = shape.numel() / cols;
    std::vector<float> w = random_floats(cols, rng, 0.5f, 1.5f), b = random_floats(cols, rng),
                       G = random_floats(rows * cols, rng);
    const float eps = 1e-5f;
    Tensor xt = on_device(x, shape), wt = on_device(w, {cols}), y = filled(shape),
           mean = filled({rows}), rstd = filled({rows});
    layernorm_forward(xt, wt, on_device(b, {cols}), eps, y, mean, rstd);
    const RefVec xd = to_double(x), wd = to_double(w), bd = to_double(b), g = to_double(G);
    expect_near_reference(to_host(y), layernorm_reference(xd, wd, bd, rows, cols, eps), "forward");

    Tensor Gt = on_device(G, shape), dx = filled(shape, 3.0f), dw = filled({cols}, 1.0f),
           db = filled({cols}, 2.0f);
    layernorm_backward(Gt, xt, wt, mean, rstd, dx, dw, db);
    auto f = [&](const RefVec& xv, const RefVec& wv, const RefVec& bv) {
      return dot_product(g, layernorm_reference(xv, wv, bv, rows, cols, eps));
    };
    expect_near_reference(
        to_host(dx), finite_difference_gradient([&](const RefVec& v) { return f(v, wd, bd); }, xd),
        "dx");
    expect_near_reference(
        to_host(dw), finite_difference_gradient([&](const RefVec& v) { return f(xd, v, bd); }, wd),
        "dweight", 1.0);
    expect_near_reference(
        to_host(db), finite_difference_gradient([&](const RefVec& v) { return f(xd, wd, v); }, bd),
        "dbias", 2.0);

    // dx may alias dy.
    Tensor inplace = on_device(G, shape), dw2 = filled({cols}), db2 = filled({cols});
    layernorm_backward(inplace, xt, wt, mean, rstd, inplace, dw2, db2);
    Tensor dx_fresh = filled(shape), dw3 = filled({cols}), db3 = filled({cols});
    layernorm_backward(Gt, xt, wt, mean, rstd, dx_fresh, dw3, db3);
    EXPECT_EQ(to_host(inplace), to_host(dx_fresh));
    EXPECT_EQ(to_host(dw2), to_host(dw3));

    // The 16-bit copies a mixed-precision stream takes of y and dx, in the same pass: convert's
    // bits, with y and dx unchanged.
    for (DType t : {DType::BF16, DType::F16}) {
      Tensor y2 = filled(shape), y16 = filled_as(shape, t), y_converted = filled_as(shape, t);
      layernorm_forward(xt, wt, on_device(b, {cols}), eps, y2, filled({rows}), filled({rows}), y16);
      convert(y, y_converted);
      EXPECT_EQ(to_host(y2), to_host(y)) << dtype_name(t);
      EXPECT_EQ(to_host(y16), to_host(y_converted)) << dtype_name(t) << " y";
      Tensor dx2 = filled(shape), dx16 = filled_as(shape, t), dx_converted = filled_as(shape, t);
      layernorm_backward(Gt, xt, wt, mean, rstd, dx2, filled({cols}), filled({cols}), dx16);
      convert(dx_fresh, dx_converted);
      EXPECT_EQ(to_host(dx2), to_host(dx_fresh)) << dtype_name(t);
      EXPECT_EQ(to_host(dx16), to_host(dx_converted)) << dtype_name(t) << " dx";
    }
  }
};

}  // namespace

TEST_P(LayerNormKernel, BackwardMatchesFiniteDifferencesAndAccumulates) {
  std::mt19937 rng(3);
  const int64_t cols = 8;
  std::vector<float> x = random_floats(6 * cols, rng, -2.0f, 3.0f);
  for (int64_t c = 0; c < cols; ++c) x[c] += 10.0f;  // a row far from zero mean
  check({2, 3, cols}, x, 4);
}

TEST_P(LayerNormKernel, OddShapes) {
  std::mt19937 rng(5);
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    std::vector<float> x = random_floats(s.rows * s.cols, rng, -2.0f, 3.0f);
    for (int64_t c = 0; c < s.cols; ++c) x[c] += 10.0f;
    check({s.rows, s.cols}, x, 6);
  }
}

// Rows wider than a block's threads (a CUDA row block strides 9 times) and more columns than
// the emulated grid's threads (the parameter gradients' grid-stride loop wraps).
TEST_P(LayerNormKernel, WideRows) {
  std::mt19937 rng(8);
  const int64_t rows = 2, cols = 1031;
  std::vector<float> x = random_floats(rows * cols, rng, -2.0f, 3.0f);
  for (int64_t c = 0; c < cols; ++c) x[c] += 10.0f;
  check({rows, cols}, x, 9);
}

// dweight and dbias sum each column over the rows in double on every backend (the CUDA twin in
// chunks of 64 rows, then the chunks: five here, so a chunk lost or counted twice fails): given
// the same mean and rstd, they round to the CPU's bits.
TEST_P(LayerNormKernel, ParameterGradientsAreTheCpuBits) {
  std::mt19937 rng(10);
  auto [rows, cols, x, G, w] = NormRows(300, 37, rng);
  const size_t n = static_cast<size_t>(rows * cols), c = static_cast<size_t>(cols),
               r = static_cast<size_t>(rows);
  std::vector<float> b = random_floats(cols, rng), y(n), mean(r), rstd(r), dx(n), dw(c, 0.5f),
                     db(c, 0.25f);
  layernorm_forward(on_cpu(x, {rows, cols}), on_cpu(w, {cols}), on_cpu(b, {cols}), 1e-5f,
                    on_cpu(y, {rows, cols}), on_cpu(mean, {rows}), on_cpu(rstd, {rows}));
  layernorm_backward(on_cpu(G, {rows, cols}), on_cpu(x, {rows, cols}), on_cpu(w, {cols}),
                     on_cpu(mean, {rows}), on_cpu(rstd, {rows}), on_cpu(dx, {rows, cols}),
                     on_cpu(dw, {cols}), on_cpu(db, {cols}));
  Tensor dwt = filled({cols}, 0.5f), dbt = filled({cols}, 0.25f), dxt = filled({rows, cols});
  layernorm_backward(on_device(G, {rows, cols}), on_device(x, {rows, cols}), on_device(w, {cols}),
                     on_device(mean, {rows}), on_device(rstd, {rows}), dxt, dwt, dbt);
  EXPECT_EQ(to_host(dwt), dw);
  EXPECT_EQ(to_host(dbt), db);
}

INSTANTIATE_KERNEL_TEST(LayerNormKernel);

// The parameter gradients sum rows in order on every thread count.
TEST(LayerNormCpu, SameBitsForAnyThreadCount) {
  std::mt19937 rng(31);
  // Named, not a structured binding: clang 14 (the sanitizers' compiler) lets no lambda
  // capture one.
  NormRows r(1517, 300, rng);
  std::vector<float> b = r.like_weight(), mean = r.per_row(), rstd = r.per_row(), y = r.like_x();
  layernorm_forward(r.x_on_cpu(), r.weight_on_cpu(), on_cpu(b, {r.cols}), 1e-5f,
                    on_cpu(y, {r.rows, r.cols}), on_cpu(mean, {r.rows}), on_cpu(rstd, {r.rows}));
  auto run = [&] {
    std::vector<float> dx = r.like_x(), dw = r.like_weight(), db = r.like_weight();
    layernorm_backward(r.dy_on_cpu(), r.x_on_cpu(), r.weight_on_cpu(), on_cpu(mean, {r.rows}),
                       on_cpu(rstd, {r.rows}), on_cpu(dx, {r.rows, r.cols}), on_cpu(dw, {r.cols}),
                       on_cpu(db, {r.cols}));
    return std::vector<std::vector<float>>{dx, dw, db};
  };
  expect_same_for_thread_counts(run, {2, 3, 7});
}

// The 16-bit twins (bf16, fp16) against the CPU's fp32 op on the same rounded x and dy, with the
// same fp32 weight and bias: y and dx are the CPU's rounded once; mean, rstd and the parameter
// gradients (fp32, added to 1 and 2) are the CPU's within the fp32 tolerance. y may alias x and
// dx may alias dy, with the same bits as out of place.
class LayerNormKernel16 : public HalfKernelTest {
 protected:
  void check(Shape shape, uint32_t seed) {
    std::mt19937 rng(seed);
    const int64_t cols = shape[shape.rank - 1], rows = shape.numel() / cols;
    const size_t n = size_t(rows * cols), r = size_t(rows), c = size_t(cols);
    std::vector<float> x = random_floats(rows * cols, rng, -2.0f, 3.0f),
                       G = random_floats(rows * cols, rng), w = random_floats(cols, rng, 0.5f, 1.5f),
                       b = random_floats(cols, rng);
    for (size_t i = 0; i < c; ++i) x[i] += 10.0f;  // a row far from zero mean
    const float eps = 1e-5f;
    Tensor xt = on_device_16(x, shape), Gt = on_device_16(G, shape), wt = on_device(w, {cols}),
           bt = on_device(b, {cols});

    std::vector<float> y(n), mean(r), rstd(r), dx(n), dw(c, 1.0f), db(c, 2.0f);
    layernorm_forward(on_cpu(x, shape), on_cpu(w, {cols}), on_cpu(b, {cols}), eps,
                      on_cpu(y, shape), on_cpu(mean, {rows}), on_cpu(rstd, {rows}));
    layernorm_backward(on_cpu(G, shape), on_cpu(x, shape), on_cpu(w, {cols}),
                       on_cpu(mean, {rows}), on_cpu(rstd, {rows}), on_cpu(dx, shape),
                       on_cpu(dw, {cols}), on_cpu(db, {cols}));

    Tensor yt = filled_16(shape, 7.0f), meant = filled({rows}), rstdt = filled({rows});
    layernorm_forward(xt, wt, bt, eps, yt, meant, rstdt);
    expect_rounded_from(to_host(yt), y, dtype(), "y");
    expect_near_reference(to_host(meant), to_double(mean), "mean");
    expect_near_reference(to_host(rstdt), to_double(rstd), "rstd");

    Tensor dxt = filled_16(shape, 3.0f), dwt = filled({cols}, 1.0f), dbt = filled({cols}, 2.0f);
    layernorm_backward(Gt, xt, wt, meant, rstdt, dxt, dwt, dbt);
    expect_rounded_from(to_host(dxt), dx, dtype(), "dx");
    expect_near_reference(to_host(dwt), to_double(dw), "dweight (+=)");
    expect_near_reference(to_host(dbt), to_double(db), "dbias (+=)");

    Tensor x_inplace = on_device_16(x, shape), mean2 = filled({rows}), rstd2 = filled({rows});
    layernorm_forward(x_inplace, wt, bt, eps, x_inplace, mean2, rstd2);
    EXPECT_EQ(to_host(x_inplace), to_host(yt)) << "y in place";
    Tensor dy_inplace = on_device_16(G, shape), dw2 = filled({cols}, 1.0f),
           db2 = filled({cols}, 2.0f);
    layernorm_backward(dy_inplace, xt, wt, meant, rstdt, dy_inplace, dw2, db2);
    EXPECT_EQ(to_host(dy_inplace), to_host(dxt)) << "dx in place";
    EXPECT_EQ(to_host(dw2), to_host(dwt)) << "dweight with dx in place";
    EXPECT_EQ(to_host(db2), to_host(dbt)) << "dbias with dx in place";
  }
};

TEST_P(LayerNormKernel16, OddShapes) {
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    check({s.rows, s.cols}, uint32_t(s.rows * 1000 + s.cols));
  }
  SCOPED_TRACE("2x3x37");
  check({2, 3, 37}, 16);
}

// As LayerNormKernel.WideRows: the row blocks stride, the parameter gradients' loop wraps.
TEST_P(LayerNormKernel16, WideRows) { check({2, 1031}, 17); }

// The 16-bit tensors of one dtype (bf16 bits are not fp16's), the parameters, statistics and
// their gradients F32; the error names the tensor.
TEST_P(LayerNormKernel16, RejectsMixedDtypes) {
  const Shape shape{3, 37};
  Tensor x = filled_16(shape, 1.0f), y = filled_16(shape), w = filled({37}, 1.0f), b = filled({37}),
         mean = filled({3}), rstd = filled({3}), dw = filled({37}), db = filled({37});
  Tensor other = filled_16(shape), y32 = filled(shape), w16 = filled_16({37}, 1.0f),
         stat16 = filled_16({3});
  other.dtype = other_16();  // the same bits, the other type
  auto forward = [&](Tensor x_, Tensor w_, Tensor b_, Tensor y_, Tensor mean_, Tensor rstd_) {
    return [=] { layernorm_forward(x_, w_, b_, 1e-5f, y_, mean_, rstd_); };
  };
  for (const Tensor& wrong : {other, y32})  // y in the other 16-bit type, or in fp32
    EXPECT_CONTAINS(error_of(forward(x, w, b, wrong, mean, rstd)), "y " + wrong.describe());
  EXPECT_CONTAINS(error_of(forward(x, w16, b, y, mean, rstd)), "weight " + w16.describe());
  EXPECT_CONTAINS(error_of(forward(x, w, w16, y, mean, rstd)), "bias " + w16.describe());
  EXPECT_CONTAINS(error_of(forward(x, w, b, y, stat16, rstd)), "mean " + stat16.describe());
  EXPECT_CONTAINS(error_of(forward(x, w, b, y, mean, stat16)), "rstd " + stat16.describe());
  auto backward = [&](Tensor dy_, Tensor x_, Tensor mean_, Tensor dx_, Tensor dw_, Tensor db_) {
    return [=] { layernorm_backward(dy_, x_, w, mean_, rstd, dx_, dw_, db_); };
  };
  EXPECT_CONTAINS(error_of(backward(other, x, mean, y, dw, db)), "dy " + other.describe());
  for (const Tensor& wrong : {other, y32})  // dx in the other 16-bit type, or in fp32
    EXPECT_CONTAINS(error_of(backward(x, x, mean, wrong, dw, db)), "dx " + wrong.describe());
  EXPECT_CONTAINS(error_of(backward(x, x, stat16, y, dw, db)), "mean " + stat16.describe());
  EXPECT_CONTAINS(error_of(backward(x, x, mean, y, w16, db)), "dweight " + w16.describe());
  EXPECT_CONTAINS(error_of(backward(x, x, mean, y, dw, w16)), "dbias " + w16.describe());
}

INSTANTIATE_HALF_KERNEL_TEST(LayerNormKernel16);
