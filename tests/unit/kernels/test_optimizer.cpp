// optimizer (kernels/optimizer.h): AdamW on every backend against a double-precision
// transcription of torch.optim.AdamW (torch 1.13, _single_tensor_adamw), over a flat range and
// odd shapes; the masked update over a flat buffer of several parameters equals their own
// updates bit for bit; clipping formed on the device equals the host's.
#include <cmath>
#include <random>
#include <vector>

#include "kernel_test.h"
#include "precis/kernels/convert.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/grad_norm.h"
#include "precis/kernels/optimizer.h"
#include "precis/kernels/optimizer_math.h"
#include "precis/model/common/flat_parameters.h"

using namespace precis;
using namespace precis::testing;

namespace {

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

class OptimizerKernel : public KernelTest {
 protected:
  // Five steps on `shape` from normal weights against the reference.
  void check_against_torch_formula(Shape shape, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const int64_t n = shape.numel();
    std::vector<float> p(static_cast<size_t>(n)), g(static_cast<size_t>(n));
    for (float& x : p) x = normal(rng);
    AdamWReference ref{std::vector<double>(p.begin(), p.end()), std::vector<double>(size_t(n), 0.0),
                       std::vector<double>(size_t(n), 0.0)};
    Tensor pt = on_device(p, shape), m = filled(shape), v = filled(shape);
    const double lr = 1e-3, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.01;  // Python floats, as torch gets them
    for (int64_t t = 1; t <= 5; ++t) {
      for (float& x : g) x = 0.1f * normal(rng);
      g[0] = 0.0f;  // a parameter with no gradient still decays
      adamw_update(pt, on_device(g, shape), m, v, lr, b1, b2, eps, wd, t);
      ref.step(g, lr, b1, b2, eps, wd, t);
    }
    std::vector<float> ph = to_host(pt), mh = to_host(m);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(ph[i], ref.p[i], 1e-6 * std::max(1.0, std::abs(ref.p[i]))) << i;
      // m sums terms (1-β1)·g ~ 0.01 that partly cancel: float rounds relative to that scale.
      EXPECT_NEAR(mh[i], ref.m[i], 1e-6 * std::max(1e-2, std::abs(ref.m[i]))) << i;
    }
  }
};

}  // namespace

TEST_P(OptimizerKernel, AdamWMatchesTheTorchFormulaOverSeveralSteps) {
  check_against_torch_formula({1000}, 3);
}

TEST_P(OptimizerKernel, AdamWOnOddShapes) {
  for (OddShape s : odd_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    check_against_torch_formula({s.rows, s.cols}, uint32_t(s.cols));
  }
}

TEST_P(OptimizerKernel, AdamWFirstStepMovesEachWeightByAboutLr) {
  // m̂ = g and v̂ = g² at step 1, so the update is lr·g/(|g| + eps) ≈ lr·sign(g).
  Tensor p = on_device(std::vector<float>{1.0f, -2.0f, 0.5f}, {3}),
         g = on_device(std::vector<float>{0.3f, -4.0f, 1e-3f}, {3}), m = filled({3}), v = filled({3});
  adamw_update(p, g, m, v, 0.01f, 0.9f, 0.999f, 1e-8f, 0.0f, 1);
  std::vector<float> ph = to_host(p);
  EXPECT_NEAR(ph[0], 0.99f, 1e-6);
  EXPECT_NEAR(ph[1], -1.99f, 1e-6);
  EXPECT_NEAR(ph[2], 0.49f, 1e-6);
  EXPECT_THROW(adamw_update(p, g, m, v, 0.01f, 0.9f, 0.999f, 1e-8f, 0.0f, 0), Error);
  Tensor short_grads = filled({2});
  EXPECT_THROW(adamw_update(p, short_grads, m, v, 0.01f, 0.9f, 0.999f, 1e-8f, 0.0f, 1), Error);
}

// The fused update over a flat buffer of several parameters equals each parameter's own update
// bit for bit: the mask's bits pick the weight decay per element, across mask words, across the
// kernel's 16384-element chunks and at a ragged end; a gap between tensors stays zero.
TEST_P(OptimizerKernel, MaskedFlatUpdateEqualsPerParameterUpdates) {
  using dist::FlatTensor;
  dist::FlatLayout layout;
  layout.tensors = {FlatTensor{"a.weight", 0, 37, true, 0}, FlatTensor{"a.bias", 37, 5, false, 0},
                    FlatTensor{"b.weight", 53, 20000, true, 0},  // gap 42..53
                    FlatTensor{"b.layer_norm.weight", 20053, 70, false, 0}};
  layout.size = 20123;  // not a multiple of 32
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t n = layout.size;
  std::vector<float> p(size_t(n), 0.0f), g(size_t(n), 0.0f);
  for (const FlatTensor& t : layout.tensors)
    for (int64_t i = t.offset; i < t.offset + t.numel; ++i) p[size_t(i)] = normal(rng);
  Tensor pt = on_device(p, {n}), m = filled({n}), v = filled({n});
  Tensor p_ref = on_device(p, {n}), m_ref = filled({n}), v_ref = filled({n});
  std::vector<uint32_t> bits = dist::weight_decay_mask(layout, 0, layout.size);
  ASSERT_EQ(bits.size(), size_t(n + 31) / 32);
  Tensor mask = on_device(bits, {int64_t(bits.size())});
  const double lr = 1e-3, wd = 0.1;  // a decay large enough to move every weight
  for (int64_t step = 1; step <= 3; ++step) {
    for (const FlatTensor& t : layout.tensors)
      for (int64_t i = t.offset; i < t.offset + t.numel; ++i) g[size_t(i)] = 0.1f * normal(rng);
    Tensor gt = on_device(g, {n});
    adamw_update_masked(pt, gt, m, v, mask, lr, 0.9, 0.999, 1e-8, wd, step);
    for (const FlatTensor& t : layout.tensors) {
      auto part = [&](const Tensor& x) { return x.slice(t.offset, t.offset + t.numel); };
      adamw_update(part(p_ref), part(gt), part(m_ref), part(v_ref), lr, 0.9, 0.999, 1e-8,
                   t.decays ? wd : 0.0, step);
    }
  }
  std::vector<float> ph = to_host(pt), mh = to_host(m), vh = to_host(v), p_refh = to_host(p_ref),
                     m_refh = to_host(m_ref), v_refh = to_host(v_ref);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(ph[i], p_refh[i]) << i;
    ASSERT_EQ(mh[i], m_refh[i]) << i;
    ASSERT_EQ(vh[i], v_refh[i]) << i;
  }
  for (size_t i = 42; i < 53; ++i) EXPECT_EQ(ph[i], 0.0f) << "gap " << i;
  Tensor short_mask = on_device(std::vector<uint32_t>(bits.size() - 1), {int64_t(bits.size()) - 1});
  EXPECT_THROW(adamw_update_masked(pt, on_device(g, {n}), m, v, short_mask, lr, 0.9, 0.999, 1e-8, wd, 4),
               Error);
}

// The fused read (GradientRead): clipping's scale applied as AdamW reads the gradient, and the
// gradient zeroed after, is bit for bit scale_in_place, the update, then zero, over several
// 16384-element chunks and a ragged end; a scale of 1 is the plain update.
TEST_P(OptimizerKernel, FusedClipAndZeroEqualTheirSeparatePasses) {
  const int64_t n = 40000;
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> p(static_cast<size_t>(n)), g(static_cast<size_t>(n));
  for (float& x : p) x = normal(rng);
  std::vector<uint32_t> bits(size_t(n + 31) / 32);
  for (uint32_t& w : bits) w = uint32_t(rng());  // words mixing both, element by element
  bits[7] = 0u, bits[8] = ~0u;
  const Tensor mask = on_device(bits, {int64_t(bits.size())});
  Tensor pf = on_device(p, {n}), mf = filled({n}), vf = filled({n});
  Tensor ps = on_device(p, {n}), ms = filled({n}), vs = filled({n});
  const float scale = 0.37f;  // any float under 1 that rounds products
  for (int64_t step = 1; step <= 3; ++step) {
    for (float& x : g) x = normal(rng);
    Tensor gf = on_device(g, {n}), gs = on_device(g, {n});
    adamw_update_masked(pf, gf, mf, vf, mask, 1e-3, 0.9, 0.999, 1e-8, 0.1, step,
                        {step == 2 ? 1.0f : scale, /*zero_after=*/true});
    if (step != 2) scale_in_place(gs, scale);
    adamw_update_masked(ps, gs, ms, vs, mask, 1e-3, 0.9, 0.999, 1e-8, 0.1, step);
    EXPECT_EQ(to_host(gf), std::vector<float>(size_t(n), 0.0f)) << "step " << step;
  }
  EXPECT_EQ(to_host(pf), to_host(ps));
  EXPECT_EQ(to_host(mf), to_host(ms));
  EXPECT_EQ(to_host(vf), to_host(vs));
}

// Clipping formed where the norm lies (GradientRead::norm_squared: the training step's path,
// nothing read back) is bit for bit the host's: the norm read back, clip_grad_norm_'s
// coefficient formed on the host, and the fused read with it. Clipped (norm over max_norm),
// not clipped, and max_norm 0 (no clipping).
TEST_P(OptimizerKernel, ClipFormedWhereTheNormLiesEqualsTheHostsClip) {
  const int64_t n = 40000;
  std::mt19937 rng(10);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> p(static_cast<size_t>(n)), g(static_cast<size_t>(n));
  for (float& x : p) x = normal(rng);
  const Tensor mask =
      on_device(std::vector<uint32_t>(size_t(n + 31) / 32, 0x5555u), {(n + 31) / 32});
  for (double max_norm : {1.0, 1e6, 0.0}) {
    Tensor pd = on_device(p, {n}), md = filled({n}), vd = filled({n});
    Tensor ph = on_device(p, {n}), mh = filled({n}), vh = filled({n});
    for (int64_t step = 1; step <= 2; ++step) {
      for (float& x : g) x = normal(rng);
      Tensor gd = on_device(g, {n}), gh = on_device(g, {n});
      const Tensor norm_squared = on_device(std::vector<double>{0.0}, {1});
      sum_of_squares_into(gd, norm_squared);
      adamw_update_masked(pd, gd, md, vd, mask, 1e-3, 0.9, 0.999, 1e-8, 0.1, step,
                          {.zero_after = true, .norm_squared = norm_squared, .max_norm = max_norm});
      const float scale = optimizer_math::clip_coefficient(std::sqrt(sum_of_squares(gh)), max_norm);
      EXPECT_EQ(scale < 1.0f, max_norm == 1.0) << max_norm;  // the cases are what they say
      adamw_update_masked(ph, gh, mh, vh, mask, 1e-3, 0.9, 0.999, 1e-8, 0.1, step,
                          {scale, /*zero_after=*/true});
      EXPECT_EQ(to_host(gd), std::vector<float>(size_t(n), 0.0f));
    }
    EXPECT_EQ(to_host(pd), to_host(ph)) << "max_norm " << max_norm;
    EXPECT_EQ(to_host(md), to_host(mh)) << "max_norm " << max_norm;
    EXPECT_EQ(to_host(vd), to_host(vh)) << "max_norm " << max_norm;
  }
}

// Mixed precision's compute copy written by the update (GradientRead::compute_copy): convert's
// bits of the updated parameters, bf16 and fp16; the parameters and moments as without it.
TEST_P(OptimizerKernel, ComputeCopyWrittenByTheUpdateIsConvertsBits) {
  const int64_t n = 5000;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> p(static_cast<size_t>(n)), g(static_cast<size_t>(n));
  for (float& x : p) x = normal(rng);
  for (float& x : g) x = normal(rng);
  const Tensor mask =
      on_device(std::vector<uint32_t>(size_t(n + 31) / 32, 0x3333u), {(n + 31) / 32});
  for (DType type : {DType::BF16, DType::F16}) {
    Tensor pf = on_device(p, {n}), mf = filled({n}), vf = filled({n});
    Tensor ps = on_device(p, {n}), ms = filled({n}), vs = filled({n});
    const Tensor fused = filled_as({n}, type, 7.0f), separate = filled_as({n}, type);
    adamw_update_masked(pf, on_device(g, {n}), mf, vf, mask, 1e-3, 0.9, 0.999, 1e-8, 0.1, 1,
                        {.clip_scale = 0.5f, .compute_copy = fused});
    adamw_update_masked(ps, on_device(g, {n}), ms, vs, mask, 1e-3, 0.9, 0.999, 1e-8, 0.1, 1,
                        {.clip_scale = 0.5f});
    convert(ps, separate);
    EXPECT_EQ(to_host(fused), to_host(separate)) << dtype_name(type);
    EXPECT_EQ(to_host(pf), to_host(ps)) << dtype_name(type);
    EXPECT_EQ(to_host(vf), to_host(vs)) << dtype_name(type);
  }
  EXPECT_THROW(adamw_update_masked(on_device(p, {n}), on_device(g, {n}), filled({n}), filled({n}),
                                   mask, 1e-3, 0.9, 0.999, 1e-8, 0.1, 1,
                                   {.compute_copy = filled({n})}),  // fp32 is no compute copy
               Error);
}

// fp16's skipped step, decided where the norm lies: an inf in the gradient leaves the
// parameters and moments as they were and the gradient zero; a finite one updates.
TEST_P(OptimizerKernel, NonFiniteNormSkipsTheUpdateWhereTheNormLies) {
  const int64_t n = 1000;
  std::vector<float> p(size_t(n), 0.5f), g(size_t(n), 0.25f), m(size_t(n), 0.125f);
  const Tensor mask = on_device(std::vector<uint32_t>(size_t(n + 31) / 32, ~0u), {(n + 31) / 32});
  for (bool overflow : {true, false}) {
    std::vector<float> grads = g;
    if (overflow) grads[17] = INFINITY;
    Tensor pt = on_device(p, {n}), gt = on_device(grads, {n}), mt = on_device(m, {n}),
           vt = on_device(m, {n});
    const Tensor norm_squared = on_device(std::vector<double>{0.0}, {1});
    sum_of_squares_into(gt, norm_squared);
    adamw_update_masked(pt, gt, mt, vt, mask, 1e-3, 0.9, 0.999, 1e-8, 0.1, 3,
                        {.zero_after = true, .norm_squared = norm_squared, .max_norm = 1.0,
                         .skip_if_not_finite = true});
    EXPECT_EQ(to_host(gt), std::vector<float>(size_t(n), 0.0f));
    EXPECT_EQ(to_host(pt) == p, overflow) << "overflow " << overflow;
    EXPECT_EQ(to_host(mt) == m, overflow) << "overflow " << overflow;
  }
}

INSTANTIATE_KERNEL_TEST(OptimizerKernel);
