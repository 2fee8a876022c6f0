// AdamW against a double-precision transcription of torch.optim.AdamW (torch 1.13,
// _single_tensor_adamw), and the gradient norm's sum of squares.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include "precis/dist/flat_parameters.h"
#include "precis/kernels/grad_norm.h"
#include "precis/kernels/optimizer.h"

using namespace precis;

namespace {

Tensor view(std::vector<float>& v) {
  return Tensor{v.data(), Shape{int64_t(v.size())}, DType::F32, Device::cpu()};
}

struct AdamWReference {
  std::vector<double> p, m, v;
  void step(const std::vector<float>& g, double lr, double b1, double b2, double eps, double wd,
            int64_t t) {
    for (size_t i = 0; i < p.size(); ++i) {
      p[i] *= 1 - lr * wd;
      m[i] = b1 * m[i] + (1 - b1) * g[i];
      v[i] = b2 * v[i] + (1 - b2) * double(g[i]) * g[i];
      double denom = std::sqrt(v[i]) / std::sqrt(1 - std::pow(b2, double(t))) + eps;
      p[i] -= lr / (1 - std::pow(b1, double(t))) * m[i] / denom;
    }
  }
};

}  // namespace

TEST(AdamW, MatchesTheTorchFormulaOverSeveralSteps) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t n = 1000;
  std::vector<float> p(n), m(n, 0.0f), v(n, 0.0f), g(n);
  for (float& x : p) x = normal(rng);
  AdamWReference ref{std::vector<double>(p.begin(), p.end()), std::vector<double>(n, 0.0),
                     std::vector<double>(n, 0.0)};
  const double lr = 1e-3, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.01;  // Python floats, as torch gets them
  for (int64_t t = 1; t <= 5; ++t) {
    for (float& x : g) x = 0.1f * normal(rng);
    g[0] = 0.0f;  // a parameter with no gradient still decays
    adamw_update(view(p), view(g), view(m), view(v), lr, b1, b2, eps, wd, t);
    ref.step(g, lr, b1, b2, eps, wd, t);
  }
  for (size_t i = 0; i < n; ++i) {
    EXPECT_NEAR(p[i], ref.p[i], 1e-6 * std::max(1.0, std::abs(ref.p[i]))) << i;
    // m sums terms (1-β1)·g ~ 0.01 that partly cancel: float rounds relative to that scale.
    EXPECT_NEAR(m[i], ref.m[i], 1e-6 * std::max(1e-2, std::abs(ref.m[i]))) << i;
  }
}

TEST(AdamW, FirstStepMovesEachWeightByAboutLr) {
  // m̂ = g and v̂ = g² at step 1, so the update is lr·g/(|g| + eps) ≈ lr·sign(g).
  std::vector<float> p{1.0f, -2.0f, 0.5f}, g{0.3f, -4.0f, 1e-3f}, m(3), v(3);
  adamw_update(view(p), view(g), view(m), view(v), 0.01f, 0.9f, 0.999f, 1e-8f, 0.0f, 1);
  EXPECT_NEAR(p[0], 0.99f, 1e-6);
  EXPECT_NEAR(p[1], -1.99f, 1e-6);
  EXPECT_NEAR(p[2], 0.49f, 1e-6);
  EXPECT_THROW(adamw_update(view(p), view(g), view(m), view(v), 0.01f, 0.9f, 0.999f, 1e-8f,
                            0.0f, 0),
               Error);
  std::vector<float> short_grads(2);
  EXPECT_THROW(adamw_update(view(p), view(short_grads), view(m), view(v), 0.01f, 0.9f, 0.999f,
                            1e-8f, 0.0f, 1),
               Error);
}

// The fused update over a flat buffer of several parameters equals each parameter's own update
// bit for bit: the mask's bits pick the weight decay per element, across mask words, across the
// kernel's 16384-element chunks and at a ragged end; a gap between tensors stays zero.
TEST(AdamW, MaskedFlatUpdateEqualsPerParameterUpdates) {
  using dist::FlatTensor;
  dist::FlatLayout layout;
  layout.tensors = {FlatTensor{"a.weight", 0, 37, ParamRole::Trainable, 0},
                    FlatTensor{"a.bias", 37, 5, ParamRole::TrainableNoDecay, 0},
                    FlatTensor{"b.weight", 53, 20000, ParamRole::Trainable, 0},  // gap 42..53
                    FlatTensor{"b.layer_norm.weight", 20053, 70, ParamRole::TrainableNoDecay, 0}};
  layout.size = 20123;  // not a multiple of 32
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t n = size_t(layout.size);
  std::vector<float> p(n, 0.0f), m(n, 0.0f), v(n, 0.0f), g(n, 0.0f);
  for (const FlatTensor& t : layout.tensors)
    for (int64_t i = t.offset; i < t.offset + t.numel; ++i) p[size_t(i)] = normal(rng);
  std::vector<float> p_ref = p, m_ref = m, v_ref = v;
  std::vector<uint32_t> bits = dist::weight_decay_mask(layout, 0, layout.size);
  ASSERT_EQ(bits.size(), (n + 31) / 32);
  Tensor mask{bits.data(), Shape{int64_t(bits.size())}, DType::I32, Device::cpu()};
  const double lr = 1e-3, wd = 0.1;  // a decay large enough to move every weight
  for (int64_t step = 1; step <= 3; ++step) {
    for (const FlatTensor& t : layout.tensors)
      for (int64_t i = t.offset; i < t.offset + t.numel; ++i) g[size_t(i)] = 0.1f * normal(rng);
    adamw_update_masked(view(p), view(g), view(m), view(v), mask, lr, 0.9, 0.999, 1e-8, wd, step);
    for (const FlatTensor& t : layout.tensors) {
      auto part = [&](std::vector<float>& x) { return view(x).slice(t.offset, t.offset + t.numel); };
      adamw_update(part(p_ref), part(g), part(m_ref), part(v_ref), lr, 0.9, 0.999, 1e-8,
                   t.role == ParamRole::Trainable ? wd : 0.0, step);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(p[i], p_ref[i]) << i;
    ASSERT_EQ(m[i], m_ref[i]) << i;
    ASSERT_EQ(v[i], v_ref[i]) << i;
  }
  for (size_t i = 42; i < 53; ++i) EXPECT_EQ(p[i], 0.0f) << "gap " << i;
  std::vector<uint32_t> short_mask(bits.size() - 1);
  EXPECT_THROW(adamw_update_masked(view(p), view(g), view(m), view(v),
                                   Tensor{short_mask.data(), Shape{int64_t(short_mask.size())},
                                          DType::I32, Device::cpu()},
                                   lr, 0.9, 0.999, 1e-8, wd, 4),
               Error);
}

// A rank's segment of the mask starts at its first element, wherever that falls in a word.
TEST(AdamW, DecayMaskOfASegment) {
  dist::FlatLayout layout;
  layout.tensors = {dist::FlatTensor{"w", 0, 40, ParamRole::Trainable, 0},
                    dist::FlatTensor{"b", 40, 30, ParamRole::TrainableNoDecay, 0},
                    dist::FlatTensor{"w2", 70, 50, ParamRole::Trainable, 0}};
  layout.size = 120;
  std::vector<uint32_t> bits = dist::weight_decay_mask(layout, 35, 100);  // 65 elements
  ASSERT_EQ(bits.size(), 3u);
  for (int64_t j = 0; j < 65; ++j) {
    int64_t i = 35 + j;
    bool expected = i < 40 || i >= 70;
    EXPECT_EQ(bool((bits[size_t(j / 32)] >> (j % 32)) & 1u), expected) << "element " << i;
  }
  EXPECT_EQ(bits[2] >> 1, 0u) << "no bits past the segment's end";
}

TEST(GradNorm, SumOfSquaresInDoubleAndIndependentOfThreads) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(300001);  // several blocks and a ragged tail
  for (float& v : x) v = u(rng);
  double expected = 0;
  for (float v : x) expected += double(v) * v;
  auto run = [&](int threads) {
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    double s = sum_of_squares(view(x));
    omp_set_num_threads(saved);
    return s;
  };
  double one = run(1);
  EXPECT_NEAR(one, expected, 1e-12 * expected);
  for (int t : {2, 3, 8}) EXPECT_EQ(run(t), one) << t << " threads";
  std::vector<float> empty;
  EXPECT_EQ(sum_of_squares(view(empty)), 0.0);
  std::vector<float> big{3e20f, 4e20f};  // squares overflow float, not double
  EXPECT_DOUBLE_EQ(sum_of_squares(view(big)), double(3e20f) * 3e20f + double(4e20f) * 4e20f);
}
