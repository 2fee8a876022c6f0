// linear (kernels/linear.h): y = x·Wᵀ + b and its backward on every backend, against loops
// in double; the accumulation rule (dweight, dbias +=, dx =); the same bits for any thread
// count on the CPU; the CUDA twin in bf16/fp16 against the CPU on the same rounded values.
#include <ostream>
#include <random>
#include <vector>

#include "precis/kernels/cuda/blas.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/linear.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

// A linear layer's shape: n rows of `in` features to `out`, with or without a bias.
struct LinearCase {
  int64_t n, in, out;
  bool bias;
};

std::ostream& operator<<(std::ostream& os, const LinearCase& c) {
  return os << c.n << "x" << c.in << " -> " << c.out << (c.bias ? " with bias" : "");
}

// A case's x, weight, bias (drawn with or without one) and dy, drawn from `rng` in this order.
struct LinearInputs {
  std::vector<float> x, w, b, G;
  LinearInputs(const LinearCase& c, std::mt19937& rng)
      : x(random_floats(c.n * c.in, rng)),
        w(random_floats(c.out * c.in, rng)),
        b(random_floats(c.out, rng)),
        G(random_floats(c.n * c.out, rng)) {}
};

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

// The bias gradient sums each column over the rows in double on every backend (the CUDA twin
// in chunks of 64 rows, then the chunks: five here, so a chunk lost or counted twice fails):
// it rounds to the CPU's bits, onto what db held.
TEST_P(LinearKernel, BiasGradientOverManyRowsIsTheCpuBits) {
  std::mt19937 rng(5);
  const int64_t n = 300, in = 3, out = 37;
  std::vector<float> xs = random_floats(n * in, rng), ws = random_floats(out * in, rng),
                     gs = random_floats(n * out, rng);
  std::vector<float> db_cpu(out, 0.75f), dw_cpu(out * in, 0.0f);
  linear_backward(on_cpu(gs, {n, out}), on_cpu(xs, {n, in}), on_cpu(ws, {out, in}), Tensor{},
                  on_cpu(dw_cpu, {out, in}), on_cpu(db_cpu, {out}));
  Tensor db = filled({out}, 0.75f), dw = filled({out, in});
  linear_backward(on_device(gs, {n, out}), on_device(xs, {n, in}), on_device(ws, {out, in}), Tensor{}, dw, db);
  EXPECT_EQ(to_host(db), db_cpu);
}

// Widths and row counts off every multiple of 8/16/32 (the GEMM tiles' edges), with and
// without a bias. The gradients of a linear map are linear maps too, so the reference is
// exact: dx = G·W, dW += Gᵀ·x, db += Σ_rows G.
TEST_P(LinearKernel, OddShapesMatchTheDoubleReference) {
  std::mt19937 rng(3);
  for (LinearCase c : {LinearCase{3, 37, 5, true}, LinearCase{5, 129, 37, true},
                       LinearCase{37, 3, 129, false}, LinearCase{1, 7, 1, true}}) {
    SCOPED_TRACE(::testing::Message() << c);
    const auto [x, w, b, G] = LinearInputs(c, rng);
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

    // dx alone into fp32, written and added.
    Tensor dx_alone = filled({c.n, c.in}, 4.0f);
    linear_input_grad_to_fp32(on_device(G, {c.n, c.out}), on_device(w, {c.out, c.in}), dx_alone,
                              false);
    expect_near_reference(to_host(dx_alone), dx_ref, "dx alone (=)");
    linear_input_grad_to_fp32(on_device(G, {c.n, c.out}), on_device(w, {c.out, c.in}), dx_alone,
                              true);
    for (double& v : dx_ref) v *= 2.0;
    expect_near_reference(to_host(dx_alone), dx_ref, "dx alone (+=)");
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
  auto run = [&] {
    std::vector<float> dx(size_t(n * in)), dw(size_t(out * in)), db(static_cast<size_t>(out)), y(size_t(n * out));
    linear_forward(on_cpu(x, {n, in}), on_cpu(w, {out, in}), on_cpu(db, {out}),
                   on_cpu(y, {n, out}));
    linear_backward(on_cpu(G, {n, out}), on_cpu(x, {n, in}), on_cpu(w, {out, in}),
                    on_cpu(dx, {n, in}), on_cpu(dw, {out, in}), on_cpu(db, {out}));
    return std::vector<std::vector<float>>{y, dx, dw, db};
  };
  expect_same_for_thread_counts(run, {2, 3, 7});
}

// The 16-bit twin (bf16, fp16) against the CPU's fp32 linear on the same rounded x, weight and
// dy: y and dx rounded once (the fp32 bias added before y's rounding), dweight and dbias fp32
// master gradients accumulated (+=) onto nonzero values. The shapes of OddShapesMatch..., with
// and without a bias, and enough rows for the bias forward's chunks of scratch rows.
class LinearKernel16 : public HalfKernelTest {};

TEST_P(LinearKernel16, TheCpuResultRoundedOnceWithFp32MasterGradients) {
  std::mt19937 rng(31);
  for (LinearCase c : {LinearCase{3, 37, 5, true}, LinearCase{5, 129, 37, true},
                       LinearCase{5, 129, 37, false}, LinearCase{37, 3, 129, true},
                       LinearCase{37, 3, 129, false}, LinearCase{1, 7, 1, true}}) {
    SCOPED_TRACE(::testing::Message() << c);
    const Shape xs{c.n, c.in}, ws{c.out, c.in}, ys{c.n, c.out}, bs{c.out};
    auto [x, w, b, G] = LinearInputs(c, rng);
    Tensor xt = on_device_16(x, xs), wt = on_device_16(w, ws), Gt = on_device_16(G, ys);
    Tensor bt = c.bias ? on_device(b, bs) : Tensor{};

    // The CPU's fp32 op on the rounded values; dweight and dbias start at 0.5 and -1.
    std::vector<float> y(size_t(c.n * c.out)), dx(size_t(c.n * c.in)),
        dw(size_t(c.out * c.in), 0.5f), db(size_t(c.out), -1.0f);
    linear_forward(on_cpu(x, xs), on_cpu(w, ws), c.bias ? on_cpu(b, bs) : Tensor{}, on_cpu(y, ys));
    linear_backward(on_cpu(G, ys), on_cpu(x, xs), on_cpu(w, ws), on_cpu(dx, xs), on_cpu(dw, ws),
                    c.bias ? on_cpu(db, bs) : Tensor{});

    Tensor yt = filled_16(ys, 3.0f);
    linear_forward(xt, wt, bt, yt);
    expect_rounded_from(to_host(yt), y, dtype(), "forward");

    Tensor dxt = filled_16(xs, 4.0f), dwt = filled(ws, 0.5f),
           dbt = c.bias ? filled(bs, -1.0f) : Tensor{};
    linear_backward(Gt, xt, wt, dxt, dwt, dbt);
    expect_rounded_from(to_host(dxt), dx, dtype(), "dx (=)");
    expect_near_reference(to_host(dwt), to_double(dw), "dweight (+=)");
    if (c.bias) expect_near_reference(to_host(dbt), to_double(db), "dbias (+=)");

    // Each gradient is skipped alone when undefined, the others unchanged.
    Tensor dw_alone = filled(ws, 0.5f), db_alone = c.bias ? filled(bs, -1.0f) : Tensor{};
    linear_backward(Gt, xt, wt, Tensor{}, dw_alone, db_alone);
    EXPECT_EQ(to_host(dw_alone), to_host(dwt)) << "dweight without dx";
    if (c.bias) {
      EXPECT_EQ(to_host(db_alone), to_host(dbt)) << "dbias without dx";
    }
    Tensor dx_alone = filled_16(xs);
    linear_backward(Gt, xt, wt, dx_alone, Tensor{}, Tensor{});
    EXPECT_EQ(to_host(dx_alone), to_host(dxt)) << "dx alone";

    // A mixed-precision stream's share: the CPU's dx in fp32, unrounded, written then added
    // onto a nonzero dx.
    Tensor dx32 = filled(xs, 4.0f);
    linear_input_grad_to_fp32(Gt, wt, dx32, false);
    expect_near_reference(to_host(dx32), to_double(dx), "dx fp32 (=)");
    linear_input_grad_to_fp32(Gt, wt, dx32, true);
    RefVec twice = to_double(dx);
    for (double& v : twice) v *= 2.0;
    expect_near_reference(to_host(dx32), twice, "dx fp32 (+=)");
  }
}

// x, the weight and y (dy, x, the weight and dx) of one 16-bit type; the bias and the parameter
// gradients fp32.
TEST_P(LinearKernel16, MixedDtypesAreRefused) {
  std::mt19937 rng(32);
  std::vector<float> xv = random_floats(6 * 3, rng), wv = random_floats(2 * 3, rng);
  Tensor x = on_device_16(xv, {6, 3}), w = on_device_16(wv, {2, 3}), y = filled_16({6, 2});
  Tensor w32 = filled({2, 3}), y32 = filled({6, 2}), b32 = filled({2}), b16 = filled_16({2});
  Tensor w_other = w;  // the same bits seen as the other 16-bit type
  w_other.dtype = other_16();
  EXPECT_NO_THROW(linear_forward(x, w, b32, y));
  EXPECT_THROW(linear_forward(x, w32, b32, y), Error);
  EXPECT_THROW(linear_forward(x, w_other, b32, y), Error);
  EXPECT_THROW(linear_forward(x, w, b32, y32), Error);
  EXPECT_NO_THROW(linear_forward(x, w, b16, y));  // the bias's compute copy
  Tensor b_other = b16;
  b_other.dtype = other_16();
  EXPECT_THROW(linear_forward(x, w, b_other, y), Error);
  EXPECT_THROW(linear_forward(filled({6, 3}), w32, b16, y32), Error);  // fp32 takes an fp32 bias

  Tensor dx = filled_16({6, 3}), dw = filled({2, 3}), db = filled({2});
  EXPECT_NO_THROW(linear_backward(y, x, w, dx, dw, db));
  EXPECT_THROW(linear_backward(y32, x, w, dx, dw, db), Error);
  EXPECT_THROW(linear_backward(y, x, w_other, dx, dw, db), Error);
  EXPECT_THROW(linear_backward(y, x, w, filled({6, 3}), dw, db), Error);
  EXPECT_THROW(linear_backward(y, x, w, dx, filled_16({2, 3}), db), Error);
  EXPECT_THROW(linear_backward(y, x, w, dx, dw, b16), Error);
}

// The bias of the compute copy's type (autocast's F.linear casts it): y = the fp32 product plus
// the 16-bit bias, rounded once, as the CPU gives on the rounded values; through the GEMM's
// bias epilogue (an aligned bias) and through the kernel after it (one the epilogue cannot
// read), with the same bits.
TEST_P(LinearKernel16, SixteenBitBiasAddedBeforeTheOneRounding) {
  std::mt19937 rng(33);
  for (LinearCase c :
       {LinearCase{5, 129, 37, true}, LinearCase{37, 3, 129, true}, LinearCase{1, 7, 1, true}}) {
    SCOPED_TRACE(::testing::Message() << c);
    const Shape xs{c.n, c.in}, ws{c.out, c.in}, ys{c.n, c.out}, bs{c.out};
    auto [x, w, b, G] = LinearInputs(c, rng);
    Tensor xt = on_device_16(x, xs), wt = on_device_16(w, ws);
    std::vector<float> padded(1, 0.0f);
    padded.insert(padded.end(), b.begin(), b.end());
    const Tensor aligned = on_device_16(b, bs);  // rounds b to the 16-bit type in place
    const Tensor unaligned = on_device_16(padded, {c.out + 1}).slice(1, c.out + 1);
    std::vector<float> y(size_t(c.n * c.out));
    linear_forward(on_cpu(x, xs), on_cpu(w, ws), on_cpu(b, bs), on_cpu(y, ys));
    Tensor epilogue = filled_16(ys, 3.0f), after = filled_16(ys, 3.0f);
    linear_forward(xt, wt, aligned, epilogue);
    linear_forward(xt, wt, unaligned, after);
    expect_rounded_from(to_host(epilogue), y, dtype(), "forward, bias epilogue");
    EXPECT_EQ(to_host(epilogue), to_host(after));
  }
}

// cuda/blas.h refuses, before reading anything, the types cuBLASLt has no fp32-compute GEMM
// for: A and B of two types, a 16-bit C for other inputs, types that are not floating point.
TEST_P(LinearKernel16, GemmRefusesUnsupportedTypes) {
  Tensor a = filled_16({1}), c = filled({1});
  const DType other = other_16();
  auto gemm = [&](DType ta, DType tb, DType tc) {
    cuda::gemm(op_stream(device()), 1, 1, 1, 1.0f, {a.ptr, ta, 1, false}, {a.ptr, tb, 1, false},
               0.0f, c.ptr, tc, 1);
  };
  EXPECT_NO_THROW(gemm(dtype(), dtype(), DType::F32));
  EXPECT_THROW(gemm(dtype(), other, DType::F32), Error);
  EXPECT_THROW(gemm(DType::F32, dtype(), DType::F32), Error);
  EXPECT_THROW(gemm(dtype(), dtype(), other), Error);
  EXPECT_THROW(gemm(DType::F32, DType::F32, dtype()), Error);
  EXPECT_THROW(gemm(DType::I32, DType::I32, DType::I32), Error);
}

// A product with no terms (k = 0) is cuBLAS's C = beta · C: zeros for beta 0 in the m rows of
// each column and nothing past them (ldc > m), C unchanged for beta 1.
TEST_P(LinearKernel16, GemmWithoutTermsScalesC) {
  Tensor a = filled_16({1});
  for (float beta : {0.0f, 1.0f}) {
    std::vector<float> before{1, 2, 3, 4, 5, 6, 7, 8};
    Tensor c = on_device(before, {2, 4});  // 2 columns of ldc 4, m = 3
    cuda::gemm(op_stream(device()), 3, 2, 0, 1.0f, {a.ptr, dtype(), 3, false}, {a.ptr, dtype(), 1, false},
               beta, c.ptr, DType::F32, 4);
    const std::vector<float> expected =
        beta == 0.0f ? std::vector<float>{0, 0, 0, 4, 0, 0, 0, 8} : before;
    EXPECT_EQ(to_host(c), expected) << "beta " << beta;
  }
}

INSTANTIATE_HALF_KERNEL_TEST(LinearKernel16);
