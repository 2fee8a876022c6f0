// layernorm (kernels/layernorm.h) forward and backward on every backend, against a double
// reference of torch.nn.LayerNorm and central differences of it; the accumulation rule,
// dx aliasing dy, and the same bits for any thread count on the CPU.
#include <cmath>
#include <random>
#include <vector>

#include "precis/kernels/layernorm.h"

#include "kernel_test.h"

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

// dweight and dbias sum each column's rows in order on every backend: given the same mean and
// rstd, they are the CPU's bits.
TEST_P(LayerNormKernel, ParameterGradientsAreTheCpuBits) {
  std::mt19937 rng(10);
  const int64_t rows = 37, cols = 300;
  const size_t n = static_cast<size_t>(rows * cols), c = static_cast<size_t>(cols),
               r = static_cast<size_t>(rows);
  std::vector<float> x = random_floats(rows * cols, rng), G = random_floats(rows * cols, rng),
                     w = random_floats(cols, rng), b = random_floats(cols, rng), y(n), mean(r),
                     rstd(r), dx(n), dw(c, 0.5f), db(c, 0.25f);
  auto host = [](std::vector<float>& v, Shape s) { return Tensor{v.data(), s, DType::F32, Device::cpu()}; };
  layernorm_forward(host(x, {rows, cols}), host(w, {cols}), host(b, {cols}), 1e-5f,
                    host(y, {rows, cols}), host(mean, {rows}), host(rstd, {rows}));
  layernorm_backward(host(G, {rows, cols}), host(x, {rows, cols}), host(w, {cols}),
                     host(mean, {rows}), host(rstd, {rows}), host(dx, {rows, cols}),
                     host(dw, {cols}), host(db, {cols}));
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
  const int64_t n = 1517, cols = 300;
  std::vector<float> x = random_floats(n * cols, rng), G = random_floats(n * cols, rng),
                     w = random_floats(cols, rng), b(static_cast<size_t>(cols)), mean(static_cast<size_t>(n)),
                     rstd(static_cast<size_t>(n)), y(size_t(n * cols));
  auto host = [](std::vector<float>& v, Shape s) { return Tensor{v.data(), s, DType::F32, Device::cpu()}; };
  layernorm_forward(host(x, {n, cols}), host(w, {cols}), host(b, {cols}), 1e-5f, host(y, {n, cols}),
                    host(mean, {n}), host(rstd, {n}));
  auto run = [&] {
    std::vector<float> dx(size_t(n * cols)), dw(static_cast<size_t>(cols)), db(static_cast<size_t>(cols));
    layernorm_backward(host(G, {n, cols}), host(x, {n, cols}), host(w, {cols}), host(mean, {n}),
                       host(rstd, {n}), host(dx, {n, cols}), host(dw, {cols}), host(db, {cols}));
    return std::vector<std::vector<float>>{dx, dw, db};
  };
  auto one = with_omp_threads(1, run);
  for (int threads : {2, 3, 7}) EXPECT_EQ(with_omp_threads(threads, run), one) << threads << " threads";
}
