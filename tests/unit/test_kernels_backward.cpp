// Backward of every CPU op against finite differences of a double-precision reference of
// its forward (the reference is checked against the fp32 forward kernel first, so the two
// compute the same function). Scalar loss L = Σ G ∘ y for a fixed random G, so dL/dy = G.
// Also: the accumulation rule (parameter gradients +=, activation gradients =), in-place
// use, and bit-identical results for any thread count where the trainer needs it.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "precis/core/rng.h"
#include "precis/kernels/activation.h"
#include "precis/kernels/attention.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/dropout.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/layernorm.h"
#include "precis/kernels/linear.h"

#include "test_support.h"

using namespace precis;

namespace {

using Vec = std::vector<double>;

// fp32 kernels against a double reference: 1e-5 relative to max(1, |reference|), the
// project's fp32 tolerance.
constexpr double kTolerance = 1e-5;

using precis::testing::Buffer;

struct IdBuffer {
  std::vector<int32_t> data;
  Shape shape;
  Tensor t() { return Tensor{data.data(), shape, DType::I32, Device::cpu()}; }
};

Buffer random_buffer(Shape s, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  Buffer b(s);
  std::uniform_real_distribution<float> u(lo, hi);
  for (float& v : b.data) v = u(rng);
  return b;
}

// Central differences of f at x, step h, for every coordinate.
Vec numerical_gradient(const std::function<double(const Vec&)>& f, Vec x, double h = 1e-6) {
  Vec g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double keep = x[i];
    x[i] = keep + h;
    double up = f(x);
    x[i] = keep - h;
    double down = f(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Every element of `actual` (minus `offset`, the value it held before += ops) against `expected`.
void expect_close(const std::vector<float>& actual, const Vec& expected, const char* what,
                  double offset = 0.0, double tolerance = kTolerance) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    double bound = tolerance * std::max(1.0, std::abs(expected[i]));
    EXPECT_NEAR(double(actual[i]) - offset, expected[i], bound) << what << " element " << i;
  }
}

// ---------------------------------------------------------------- double references

Vec linear_ref(const Vec& x, const Vec& w, const Vec& b, int64_t n, int64_t in, int64_t out) {
  Vec y(size_t(n * out));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double s = b.empty() ? 0.0 : b[o];
      for (int64_t i = 0; i < in; ++i) s += x[r * in + i] * w[o * in + i];
      y[r * out + o] = s;
    }
  return y;
}

Vec layernorm_ref(const Vec& x, const Vec& w, const Vec& b, int64_t rows, int64_t cols,
                  double eps) {
  Vec y(x.size());
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

double activation_ref(Activation a, double v) {
  const double pi = 3.14159265358979323846;
  switch (a) {
    case Activation::GeluExact: return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    case Activation::GeluTanh:
      return 0.5 * v * (1 + std::tanh(std::sqrt(2 / pi) * (v + 0.044715 * v * v * v)));
    case Activation::GeluFast:
      return 0.5 * v * (1 + std::tanh(0.7978845608 * v * (1 + 0.044715 * v * v)));
    case Activation::QuickGelu: return v / (1 + std::exp(-1.702 * v));
    case Activation::Relu: return v > 0 ? v : 0;
    case Activation::Silu: return v / (1 + std::exp(-v));
    case Activation::Tanh: return std::tanh(v);
    case Activation::Linear: return v;
  }
  return 0;
}

struct AttentionCase {
  int64_t batch = 2, heads = 2, q_len = 3, k_len = 5, head_dim = 4;
  std::vector<int32_t> key_padding;  // (B, Tk) or empty
  bool causal = false;
  int64_t past = 0;
  DropoutSpec dropout;
};

// out (B, Tq, H*hd) of softmax(scale·q·kᵀ + mask) (dropped out) · v, in double.
Vec attention_ref(const AttentionCase& c, const Vec& q, const Vec& k, const Vec& v, double scale) {
  int64_t d = c.heads * c.head_dim;
  Vec out(size_t(c.batch * c.q_len * d));
  uint64_t threshold = dropout_threshold(c.dropout.p);
  double keep_scale = c.dropout.p > 0 ? double(1.0f / float(1.0 - double(c.dropout.p))) : 1.0;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < c.q_len; ++i) {
        Vec s(size_t(c.k_len));
        std::vector<bool> visible(size_t(c.k_len));
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < c.k_len; ++j) {
          visible[j] = (c.key_padding.empty() || c.key_padding[b * c.k_len + j]) &&
                       (!c.causal || j <= i + c.past);
          double dotp = 0;
          for (int64_t e = 0; e < c.head_dim; ++e)
            dotp += q[(b * c.q_len + i) * d + h * c.head_dim + e] *
                    k[(b * c.k_len + j) * d + h * c.head_dim + e];
          s[j] = scale * dotp;
          if (visible[j]) max = std::max(max, s[j]);
        }
        double z = 0;
        for (int64_t j = 0; j < c.k_len; ++j) z += visible[j] ? std::exp(s[j] - max) : 0.0;
        for (int64_t j = 0; j < c.k_len; ++j) {
          double p = visible[j] ? std::exp(s[j] - max) / z : 0.0;
          if (c.dropout.p > 0) {
            uint64_t index = uint64_t(((b * c.heads + h) * c.q_len + i) * c.k_len + j);
            p = random_bits(c.dropout.seed, c.dropout.stream, index) >= threshold ? p * keep_scale
                                                                                 : 0.0;
          }
          for (int64_t e = 0; e < c.head_dim; ++e)
            out[(b * c.q_len + i) * d + h * c.head_dim + e] +=
                p * v[(b * c.k_len + j) * d + h * c.head_dim + e];
        }
      }
  return out;
}

// Per-position loss of cross-entropy with label smoothing, summed over counted positions.
double cross_entropy_ref(const Vec& logits, const std::vector<int32_t>& labels, int64_t vocab,
                         double eps) {
  double total = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == kIgnoreIndex) continue;
    const double* row = logits.data() + i * vocab;
    double max = *std::max_element(row, row + vocab), z = 0, mean = 0;
    for (int64_t j = 0; j < vocab; ++j) {
      z += std::exp(row[j] - max);
      mean += row[j] / vocab;
    }
    double log_z = std::log(z) + max;
    total += (1 - eps) * (log_z - row[labels[i]]) + eps * (log_z - mean);
  }
  return total;
}

}  // namespace

// ---------------------------------------------------------------- linear

TEST(LinearBackward, MatchesFiniteDifferencesAndAccumulates) {
  std::mt19937 rng(1);
  const int64_t B = 2, T = 3, in = 5, out = 4, n = B * T;
  Buffer x = random_buffer({B, T, in}, rng), w = random_buffer({out, in}, rng),
         b = random_buffer({out}, rng), G = random_buffer({B, T, out}, rng);
  Buffer y({B, T, out});
  linear_forward(x.t(), w.t(), b.t(), y.t());
  expect_close(y.data, linear_ref(x.as_double(), w.as_double(), b.as_double(), n, in, out),
               "forward");

  Buffer dx({B, T, in}, 7.0f), dw({out, in}, 0.5f), db({out}, -0.25f);
  linear_backward(G.t(), x.t(), w.t(), dx.t(), dw.t(), db.t());
  Vec g = G.as_double();
  auto loss_x = [&](const Vec& xv) {
    return dot(g, linear_ref(xv, w.as_double(), b.as_double(), n, in, out));
  };
  auto loss_w = [&](const Vec& wv) {
    return dot(g, linear_ref(x.as_double(), wv, b.as_double(), n, in, out));
  };
  auto loss_b = [&](const Vec& bv) {
    return dot(g, linear_ref(x.as_double(), w.as_double(), bv, n, in, out));
  };
  expect_close(dx.data, numerical_gradient(loss_x, x.as_double()), "dx (=)");
  expect_close(dw.data, numerical_gradient(loss_w, w.as_double()), "dweight (+=)", 0.5);
  expect_close(db.data, numerical_gradient(loss_b, b.as_double()), "dbias (+=)", -0.25);
}

TEST(LinearBackward, OptionalGradientsAreSkipped) {
  std::mt19937 rng(2);
  Buffer x = random_buffer({6, 3}, rng), w = random_buffer({2, 3}, rng),
         G = random_buffer({6, 2}, rng);
  Buffer dw({2, 3}), dw_alone({2, 3});
  Buffer dx({6, 3});
  linear_backward(G.t(), x.t(), w.t(), dx.t(), dw.t(), Tensor{});
  linear_backward(G.t(), x.t(), w.t(), Tensor{}, dw_alone.t(), Tensor{});
  EXPECT_EQ(dw.data, dw_alone.data);
  Buffer bad({5, 3});
  EXPECT_THROW(linear_backward(G.t(), x.t(), w.t(), bad.t(), dw.t(), Tensor{}), Error);
}

// ---------------------------------------------------------------- layernorm

TEST(LayerNormBackward, MatchesFiniteDifferencesAndAccumulates) {
  std::mt19937 rng(3);
  const int64_t rows = 6, cols = 8;
  Buffer x = random_buffer({2, 3, cols}, rng, -2.0f, 3.0f);
  for (int64_t c = 0; c < cols; ++c) x.data[c] += 10.0f;  // a row far from zero mean
  Buffer w = random_buffer({cols}, rng, 0.5f, 1.5f), b = random_buffer({cols}, rng),
         G = random_buffer({2, 3, cols}, rng);
  Buffer y({2, 3, cols}), mean({rows}), rstd({rows});
  const float eps = 1e-5f;
  layernorm_forward(x.t(), w.t(), b.t(), eps, y.t(), mean.t(), rstd.t());
  expect_close(y.data, layernorm_ref(x.as_double(), w.as_double(), b.as_double(), rows, cols, eps),
               "forward");

  Buffer dx({2, 3, cols}, 3.0f), dw({cols}, 1.0f), db({cols}, 2.0f);
  layernorm_backward(G.t(), x.t(), w.t(), mean.t(), rstd.t(), dx.t(), dw.t(), db.t());
  Vec g = G.as_double();
  auto f = [&](const Vec& xv, const Vec& wv, const Vec& bv) {
    return dot(g, layernorm_ref(xv, wv, bv, rows, cols, eps));
  };
  expect_close(dx.data,
               numerical_gradient([&](const Vec& v) { return f(v, w.as_double(), b.as_double()); },
                                  x.as_double()),
               "dx");
  expect_close(dw.data,
               numerical_gradient([&](const Vec& v) { return f(x.as_double(), v, b.as_double()); },
                                  w.as_double()),
               "dweight", 1.0);
  expect_close(db.data,
               numerical_gradient([&](const Vec& v) { return f(x.as_double(), w.as_double(), v); },
                                  b.as_double()),
               "dbias", 2.0);

  // dx may alias dy.
  Buffer inplace = G, dw2({cols}), db2({cols});
  layernorm_backward(inplace.t(), x.t(), w.t(), mean.t(), rstd.t(), inplace.t(), dw2.t(), db2.t());
  Buffer dx_fresh({2, 3, cols}), dw3({cols}), db3({cols});
  layernorm_backward(G.t(), x.t(), w.t(), mean.t(), rstd.t(), dx_fresh.t(), dw3.t(), db3.t());
  EXPECT_EQ(inplace.data, dx_fresh.data);
  EXPECT_EQ(dw2.data, dw3.data);
}

// ---------------------------------------------------------------- embeddings

TEST(EmbeddingBackward, ScalesSkipsPaddingAndAddsRepeats) {
  std::mt19937 rng(4);
  const int64_t V = 6, d = 5, B = 2, T = 4, pad = 1;
  IdBuffer ids{{0, 3, 1, 3, 5, 1, 3, 2}, Shape{B, T}};
  Buffer table = random_buffer({V, d}, rng), G = random_buffer({B, T, d}, rng);
  const float scale = 1.5f;
  Buffer dtable({V, d}, 0.125f);
  embedding_backward(G.t(), ids.t(), scale, pad, dtable.t());
  // out = table[ids]·scale is linear in the table: the gradient is exact, check it directly.
  Vec expected(size_t(V * d), 0.0);
  for (int64_t i = 0; i < B * T; ++i)
    if (ids.data[i] != pad)
      for (int64_t c = 0; c < d; ++c) expected[ids.data[i] * d + c] += G.data[i * d + c] * scale;
  expect_close(dtable.data, expected, "dtable (+=)", 0.125);
  for (int64_t c = 0; c < d; ++c) EXPECT_EQ(dtable.data[pad * d + c], 0.125f) << "pad row";

  // padding_idx < 0: every row gets its gradient.
  Buffer all({V, d});
  embedding_backward(G.t(), ids.t(), 1.0f, -1, all.t());
  EXPECT_NE(all.data[pad * d], 0.0f);

  IdBuffer bad{{0, 6}, Shape{1, 2}};
  Buffer G2({1, 2, d});
  EXPECT_THROW(embedding_backward(G2.t(), bad.t(), 1.0f, -1, dtable.t()), Error);
}

TEST(EmbeddingBackward, PositionsSumOverTheBatch) {
  std::mt19937 rng(5);
  const int64_t B = 3, T = 4, d = 5, P = 9, first = 2;
  Buffer G = random_buffer({B, T, d}, rng);
  Buffer dpos({P, d}, 1.0f);
  position_embeddings_backward(G.t(), first, dpos.t());
  Vec expected(size_t(P * d), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < d; ++c) expected[(first + t) * d + c] += G.data[(b * T + t) * d + c];
  expect_close(dpos.data, expected, "dpositions (+=)", 1.0);
  EXPECT_THROW(position_embeddings_backward(G.t(), 6, dpos.t()), Error);
}

// ---------------------------------------------------------------- activations

TEST(ActivationBackward, EveryKindMatchesFiniteDifferences) {
  std::mt19937 rng(6);
  Buffer x = random_buffer({64}, rng, -4.0f, 4.0f);
  for (float& v : x.data)
    if (std::abs(v) < 1e-3f) v = 0.5f;  // relu's kink
  Buffer G = random_buffer({64}, rng);
  for (Activation a : {Activation::GeluExact, Activation::GeluTanh, Activation::GeluFast,
                       Activation::QuickGelu, Activation::Relu, Activation::Silu,
                       Activation::Tanh, Activation::Linear}) {
    Buffer y({64}), dx({64}, 9.0f);
    activation_forward(a, x.t(), y.t());
    Vec expected_y(64);
    for (int i = 0; i < 64; ++i) expected_y[i] = activation_ref(a, x.data[i]);
    expect_close(y.data, expected_y, activation_name(a).c_str());
    activation_backward(a, x.t(), G.t(), dx.t());
    Vec expected(64);
    for (int i = 0; i < 64; ++i) {
      double h = 1e-6, v = x.data[i];
      expected[i] = G.data[i] * (activation_ref(a, v + h) - activation_ref(a, v - h)) / (2 * h);
    }
    expect_close(dx.data, expected, activation_name(a).c_str());
    // In place on dy.
    Buffer inplace = G;
    activation_backward(a, x.t(), inplace.t(), inplace.t());
    EXPECT_EQ(inplace.data, dx.data) << activation_name(a);
  }
  Buffer zero({1}), one({1}, 1.0f), d({1}, 5.0f);
  activation_backward(Activation::Relu, zero.t(), one.t(), d.t());
  EXPECT_EQ(d.data[0], 0.0f) << "relu'(0) = 0 as in torch";
}

// ---------------------------------------------------------------- elementwise

TEST(Elementwise, AddIntoAndScale) {
  Buffer a({3}), b({3});
  a.data = {1, 2, 3};
  b.data = {10, 20, 30};
  add_into(a.t(), b.t());
  EXPECT_EQ(b.data, (std::vector<float>{11, 22, 33}));
  scale_in_place(b.t(), 0.5f);
  EXPECT_EQ(b.data, (std::vector<float>{5.5f, 11, 16.5f}));
  Buffer c({4});
  EXPECT_THROW(add_into(a.t(), c.t()), Error);
}

// ---------------------------------------------------------------- attention

namespace {

void check_attention(const AttentionCase& c, uint32_t seed) {
  std::mt19937 rng(seed);
  int64_t d = c.heads * c.head_dim;
  Buffer q = random_buffer({c.batch, c.q_len, d}, rng, -2.0f, 2.0f);
  Buffer k = random_buffer({c.batch, c.k_len, d}, rng, -2.0f, 2.0f);
  Buffer v = random_buffer({c.batch, c.k_len, d}, rng);
  Buffer G = random_buffer({c.batch, c.q_len, d}, rng);
  float scale = float(1.0 / std::sqrt(double(c.head_dim)));
  IdBuffer padding{c.key_padding, Shape{c.batch, c.k_len}};
  AttentionMask mask;
  if (!c.key_padding.empty()) mask.key_padding = padding.t();
  mask.causal = c.causal;
  mask.past = c.past;

  Buffer out({c.batch, c.q_len, d}), probs({c.batch, c.heads, c.q_len, c.k_len});
  attention_forward(q.t(), k.t(), v.t(), c.heads, scale, mask, out.t(), probs.t(), c.dropout);
  expect_close(out.data, attention_ref(c, q.as_double(), k.as_double(), v.as_double(), scale),
               "forward");
  // probs are the softmax before dropout: every row sums to one.
  for (int64_t r = 0; r < c.batch * c.heads * c.q_len; ++r) {
    double s = 0;
    for (int64_t j = 0; j < c.k_len; ++j) s += probs.data[r * c.k_len + j];
    EXPECT_NEAR(s, 1.0, 1e-6);
  }

  Buffer dq({c.batch, c.q_len, d}, 5.0f), dk({c.batch, c.k_len, d}, 5.0f),
      dv({c.batch, c.k_len, d}, 5.0f);
  attention_backward(G.t(), q.t(), k.t(), v.t(), probs.t(), c.heads, scale, c.dropout, dq.t(),
                     dk.t(), dv.t());
  Vec g = G.as_double();
  Vec qd = q.as_double(), kd = k.as_double(), vd = v.as_double();
  expect_close(dq.data,
               numerical_gradient([&](const Vec& x) { return dot(g, attention_ref(c, x, kd, vd, scale)); }, qd),
               "dq");
  expect_close(dk.data,
               numerical_gradient([&](const Vec& x) { return dot(g, attention_ref(c, qd, x, vd, scale)); }, kd),
               "dk");
  expect_close(dv.data,
               numerical_gradient([&](const Vec& x) { return dot(g, attention_ref(c, qd, kd, x, scale)); }, vd),
               "dv");
}

}  // namespace

TEST(AttentionBackward, NoMask) { check_attention(AttentionCase{}, 10); }

TEST(AttentionBackward, KeyPadding) {
  AttentionCase c;
  c.key_padding = {1, 1, 1, 0, 0, 1, 0, 1, 1, 1};
  check_attention(c, 11);
}

TEST(AttentionBackward, CausalWithPast) {
  AttentionCase c;
  c.q_len = 3;
  c.k_len = 5;
  c.causal = true;
  c.past = 2;
  check_attention(c, 12);
}

TEST(AttentionBackward, CausalSelfAttentionWithKeyPadding) {
  AttentionCase c;
  c.q_len = c.k_len = 4;
  c.causal = true;
  c.key_padding = {1, 1, 1, 0, 1, 1, 1, 1};
  check_attention(c, 13);
}

TEST(AttentionBackward, CrossAttentionShapes) {
  AttentionCase c;
  c.batch = 3;
  c.heads = 3;
  c.q_len = 2;
  c.k_len = 7;
  c.head_dim = 2;
  c.key_padding.assign(21, 1);
  c.key_padding[6] = c.key_padding[13] = c.key_padding[12] = 0;
  check_attention(c, 14);
}

// Attention dropout with a fixed mask (the spec's seed and stream): the reference draws the
// same bits element by element; half the probabilities dropped.
TEST(AttentionBackward, WithDropoutMatchesFiniteDifferences) {
  AttentionCase c;
  c.dropout = {0.5f, 1234, dropout_stream(3, 0, 1, 0)};
  check_attention(c, 15);
  c.key_padding = {1, 1, 1, 1, 0, 1, 1, 0, 1, 1};
  c.causal = true;
  c.past = 2;
  c.dropout = {0.2f, 99, 7};
  check_attention(c, 16);
}

TEST(AttentionBackward, ProbsKeepTheSoftmaxBeforeDropout) {
  AttentionCase c;
  std::mt19937 rng(17);
  int64_t d = c.heads * c.head_dim;
  Buffer q = random_buffer({c.batch, c.q_len, d}, rng), k = random_buffer({c.batch, c.k_len, d}, rng),
         v = random_buffer({c.batch, c.k_len, d}, rng);
  Buffer out({c.batch, c.q_len, d}), plain({c.batch, c.heads, c.q_len, c.k_len}),
      dropped({c.batch, c.heads, c.q_len, c.k_len});
  attention_forward(q.t(), k.t(), v.t(), c.heads, 0.5f, {}, out.t(), plain.t());
  attention_forward(q.t(), k.t(), v.t(), c.heads, 0.5f, {}, out.t(), dropped.t(), {0.3f, 1, 2});
  EXPECT_EQ(plain.data, dropped.data);
}

// ---------------------------------------------------------------- cross-entropy

namespace {

void check_cross_entropy(float eps, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t N = 6, V = 7;
  Buffer logits = random_buffer({2, 3, V}, rng, -3.0f, 3.0f);
  IdBuffer labels{{3, -100, 0, 6, -100, 2}, Shape{2, 3}};
  const float loss_scale = 0.25f;  // 1 / counted
  Buffer dlogits({2, 3, V}, 4.0f);
  cross_entropy_backward(logits.t(), labels.t(), eps, loss_scale, dlogits.t());
  Vec expected = numerical_gradient(
      [&](const Vec& l) { return loss_scale * cross_entropy_ref(l, labels.data, V, eps); },
      logits.as_double());
  expect_close(dlogits.data, expected, "dlogits");
  for (int64_t j = 0; j < V; ++j) EXPECT_EQ(dlogits.data[1 * V + j], 0.0f) << "ignored row";
  // The forward's per-position loss agrees with the same reference.
  Buffer losses({N});
  CrossEntropyResult r = cross_entropy_forward(logits.t(), labels.t(), losses.t(), eps);
  EXPECT_EQ(r.counted, 4);
  EXPECT_NEAR(r.loss_sum, cross_entropy_ref(logits.as_double(), labels.data, V, eps), 1e-5);
  // In place: dlogits aliasing logits.
  Buffer inplace = logits;
  cross_entropy_backward(inplace.t(), labels.t(), eps, loss_scale, inplace.t());
  EXPECT_EQ(inplace.data, dlogits.data);
}

}  // namespace

TEST(CrossEntropyBackward, IgnoreIndex) { check_cross_entropy(0.0f, 20); }
TEST(CrossEntropyBackward, LabelSmoothing) { check_cross_entropy(0.1f, 21); }

TEST(CrossEntropyBackward, RejectsLabelsOutsideTheVocabulary) {
  Buffer logits({2, 3}), d({2, 3});
  IdBuffer labels{{1, 3}, Shape{2}};
  EXPECT_THROW(cross_entropy_backward(logits.t(), labels.t(), 0.0f, 1.0f, d.t()), Error);
}

// ---------------------------------------------------------------- determinism

// The reductions over rows (bias, layernorm parameters, embedding rows, position rows) must
// give the same bits for any thread count, or a resumed run would drift.
TEST(BackwardDeterminism, SameBitsForAnyThreadCount) {
  std::mt19937 rng(30);
  const int64_t n = 1517, in = 300, out = 530, V = 40;
  Buffer x = random_buffer({n, in}, rng), w = random_buffer({out, in}, rng),
         G = random_buffer({n, out}, rng), Gx = random_buffer({n, in}, rng);
  Buffer mean({n}), rstd({n}), y({n, in}), lw = random_buffer({in}, rng), lb({in});
  layernorm_forward(x.t(), lw.t(), lb.t(), 1e-5f, y.t(), mean.t(), rstd.t());
  IdBuffer ids{std::vector<int32_t>(size_t(n)), Shape{1, n}};
  for (auto& id : ids.data) id = int32_t(rng() % V);
  auto run = [&](int threads) {
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    std::vector<std::vector<float>> r;
    Buffer dx({n, in}), dw({out, in}), db({out}), ldx({n, in}), ldw({in}), ldb({in}), dt({V, in}),
        dpos({n + 2, in}), fy({n, out});
    linear_forward(x.t(), w.t(), db.t(), fy.t());
    linear_backward(G.t(), x.t(), w.t(), dx.t(), dw.t(), db.t());
    layernorm_backward(Gx.t(), x.t(), lw.t(), mean.t(), rstd.t(), ldx.t(), ldw.t(), ldb.t());
    embedding_backward(Gx.t().view({1, n, in}), ids.t(), 2.0f, 1, dt.t());
    position_embeddings_backward(Gx.t().view({1, n, in}), 2, dpos.t());
    omp_set_num_threads(saved);
    return std::vector<std::vector<float>>{fy.data,  dx.data,  dw.data, db.data, ldx.data,
                                           ldw.data, ldb.data, dt.data, dpos.data};
  };
  auto one = run(1);
  for (int threads : {2, 3, 7}) EXPECT_EQ(run(threads), one) << threads << " threads";
}
