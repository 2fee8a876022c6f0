// linear (kernels/linear.h): y = x·Wᵀ + b and its backward on every backend, against loops
// in double; the accumulation rule (dweight, dbias +=, dx =); the same bits for any thread
// count on the CPU.
#include <random>
#include <vector>

#include "precis/kernels/linear.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

// y (n, out) = x (n, in) · w (out, in)ᵀ + b (out; empty: no bias), in double.
RefVec linear_reference(const RefVec& x, const RefVec& w, const RefVec& b, int64_t n, int64_t in,
                        int64_t out) {
  RefVec y(size_t(n * out));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double s = b.empty() ? 0.0 : b[o];
      for (int64_t i = 0; i < in; ++i) s += x[r * in + i] * w[o * in + i];
      y[r * out + o] = s;
    }
  return y;
}

class LinearKernel : public KernelTest {};

}  // namespace

TEST_P(LinearKernel, BackwardMatchesFiniteDifferencesAndAccumulates) {
  std::mt19937 rng(1);
  const int64_t B = 2, T = 3, in = 5, out = 4, n = B * T;
  std::vector<float> x = random_floats(B * T * in, rng), w = random_floats(out * in, rng),
                     b = random_floats(out, rng), G = random_floats(B * T * out, rng);
  Tensor y = filled({B, T, out});
  linear_forward(on_device(x, {B, T, in}), on_device(w, {out, in}), on_device(b, {out}), y);
  const RefVec xd = to_double(x), wd = to_double(w), bd = to_double(b), g = to_double(G);
  expect_near_reference(to_host(y), linear_reference(xd, wd, bd, n, in, out), "forward");

  Tensor dx = filled({B, T, in}, 7.0f), dw = filled({out, in}, 0.5f), db = filled({out}, -0.25f);
  linear_backward(on_device(G, {B, T, out}), on_device(x, {B, T, in}), on_device(w, {out, in}), dx,
                  dw, db);
  auto loss_x = [&](const RefVec& v) { return dot_product(g, linear_reference(v, wd, bd, n, in, out)); };
  auto loss_w = [&](const RefVec& v) { return dot_product(g, linear_reference(xd, v, bd, n, in, out)); };
  auto loss_b = [&](const RefVec& v) { return dot_product(g, linear_reference(xd, wd, v, n, in, out)); };
  expect_near_reference(to_host(dx), finite_difference_gradient(loss_x, xd), "dx (=)");
  expect_near_reference(to_host(dw), finite_difference_gradient(loss_w, wd), "dweight (+=)", 0.5);
  expect_near_reference(to_host(db), finite_difference_gradient(loss_b, bd), "dbias (+=)", -0.25);
}

TEST_P(LinearKernel, OptionalGradientsAreSkipped) {
  std::mt19937 rng(2);
  Tensor x = on_device(random_floats(18, rng), {6, 3}), w = on_device(random_floats(6, rng), {2, 3}),
         G = on_device(random_floats(12, rng), {6, 2});
  Tensor dw = filled({2, 3}), dw_alone = filled({2, 3}), dx = filled({6, 3});
  linear_backward(G, x, w, dx, dw, Tensor{});
  linear_backward(G, x, w, Tensor{}, dw_alone, Tensor{});
  EXPECT_EQ(to_host(dw), to_host(dw_alone));
  Tensor bad = filled({5, 3});
  EXPECT_THROW(linear_backward(G, x, w, bad, dw, Tensor{}), Error);
}

// Widths and row counts off every multiple of 8/16/32 (the GEMM tiles' edges), with and
// without a bias. The gradients of a linear map are linear maps too, so the reference is
// exact: dx = G·W, dW += Gᵀ·x, db += Σ_rows G.
TEST_P(LinearKernel, OddShapesMatchTheDoubleReference) {
  struct Case {
    int64_t n, in, out;
    bool bias;
  };
  std::mt19937 rng(3);
  for (Case c : {Case{3, 37, 5, true}, Case{5, 129, 37, true}, Case{37, 3, 129, false},
                 Case{1, 7, 1, true}}) {
    SCOPED_TRACE(::testing::Message() << c.n << "x" << c.in << " -> " << c.out);
    std::vector<float> x = random_floats(c.n * c.in, rng), w = random_floats(c.out * c.in, rng),
                       b = random_floats(c.out, rng), G = random_floats(c.n * c.out, rng);
    const RefVec xd = to_double(x), wd = to_double(w), bd = c.bias ? to_double(b) : RefVec{},
                 g = to_double(G);
    Tensor bias = c.bias ? on_device(b, {c.out}) : Tensor{};
    Tensor y = filled({c.n, c.out}, 3.0f);
    linear_forward(on_device(x, {c.n, c.in}), on_device(w, {c.out, c.in}), bias, y);
    expect_near_reference(to_host(y), linear_reference(xd, wd, bd, c.n, c.in, c.out), "forward");

    RefVec dx_ref(size_t(c.n * c.in), 0.0), dw_ref(size_t(c.out * c.in), 0.0),
        db_ref(size_t(c.out), 0.0);
    for (int64_t r = 0; r < c.n; ++r)
      for (int64_t o = 0; o < c.out; ++o) {
        db_ref[o] += g[r * c.out + o];
        for (int64_t i = 0; i < c.in; ++i) {
          dx_ref[r * c.in + i] += g[r * c.out + o] * wd[o * c.in + i];
          dw_ref[o * c.in + i] += g[r * c.out + o] * xd[r * c.in + i];
        }
      }
    Tensor dx = filled({c.n, c.in}, 4.0f), dw = filled({c.out, c.in}, 0.5f),
           db = c.bias ? filled({c.out}, -1.0f) : Tensor{};
    linear_backward(on_device(G, {c.n, c.out}), on_device(x, {c.n, c.in}),
                    on_device(w, {c.out, c.in}), dx, dw, db);
    expect_near_reference(to_host(dx), dx_ref, "dx (=)");
    expect_near_reference(to_host(dw), dw_ref, "dweight (+=)", 0.5);
    if (c.bias) expect_near_reference(to_host(db), db_ref, "dbias (+=)", -1.0);
  }
}

INSTANTIATE_KERNEL_TEST(LinearKernel);

// The GEMMs run on a grid of tiles fixed by the shapes and the bias sums rows in order, so the
// CPU gives the same bits for any thread count (a resumed run would drift otherwise).
TEST(LinearCpu, SameBitsForAnyThreadCount) {
  std::mt19937 rng(30);
  const int64_t n = 1517, in = 300, out = 530;
  std::vector<float> x = random_floats(n * in, rng), w = random_floats(out * in, rng),
                     G = random_floats(n * out, rng);
  auto host = [](std::vector<float>& v, Shape s) { return Tensor{v.data(), s, DType::F32, Device::cpu()}; };
  auto run = [&] {
    std::vector<float> dx(size_t(n * in)), dw(size_t(out * in)), db(static_cast<size_t>(out)), y(size_t(n * out));
    linear_forward(host(x, {n, in}), host(w, {out, in}), host(db, {out}), host(y, {n, out}));
    linear_backward(host(G, {n, out}), host(x, {n, in}), host(w, {out, in}), host(dx, {n, in}),
                    host(dw, {out, in}), host(db, {out}));
    return std::vector<std::vector<float>>{y, dx, dw, db};
  };
  auto one = with_omp_threads(1, run);
  for (int threads : {2, 3, 7}) EXPECT_EQ(with_omp_threads(threads, run), one) << threads << " threads";
}
