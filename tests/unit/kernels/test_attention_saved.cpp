// Attention's two kinds of saved state (kernels/attention.h, AttentionSaved): a backward that
// recomputes the softmax from the rows' log-sum-exp, as a flash-style GPU kernel will, gives
// the gradients of the backward that reads the stored probabilities, under every mask: key
// padding (with a row that sees no key), causality with a past, T5's position bias, dropout.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "precis/kernels/attention.h"

using namespace precis;

namespace {

struct Floats {
  std::vector<float> data;
  Shape shape;
  Floats(Shape s, std::mt19937* rng = nullptr) : data(size_t(s.numel()), 0.0f), shape(s) {
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    if (rng)
      for (float& x : data) x = u(*rng);
  }
  Tensor t() { return Tensor{data.data(), shape, DType::F32, Device::cpu()}; }
};

struct SavedCase {
  int64_t batch = 2, heads = 3, q_len = 5, k_len = 7, head_dim = 4, past = 0;
  bool causal = false, padding = false, bias = false;
  DropoutSpec dropout;
};

// The largest |a - b| over the largest |b|: the gradients' scale sets the tolerance.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::abs(double(b[i])));
  }
  return worst / scale;
}

void check_recomputed_backward(const SavedCase& c) {
  std::mt19937 rng(11);
  const int64_t d = c.heads * c.head_dim;
  Floats q({c.batch, c.q_len, d}, &rng), k({c.batch, c.k_len, d}, &rng),
      v({c.batch, c.k_len, d}, &rng), dout({c.batch, c.q_len, d}, &rng),
      bias({c.heads, c.q_len, c.k_len}, &rng);
  // Batch row 0 sees keys 0, 1, 3 and 5; row 1 sees none (HF makes such a row uniform).
  std::vector<int32_t> padding = {1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  AttentionMask mask;
  if (c.padding) mask.key_padding = Tensor{padding.data(), Shape{2, 7}, DType::I32, Device::cpu()};
  mask.causal = c.causal;
  mask.past = c.past;
  if (c.bias) mask.position_bias = bias.t();
  const float scale = 0.5f;

  Floats out_p({c.batch, c.q_len, d}), out_l({c.batch, c.q_len, d});
  Floats probs({c.batch, c.heads, c.q_len, c.k_len}), lse({c.batch, c.heads, c.q_len});
  attention_forward(q.t(), k.t(), v.t(), c.heads, scale, mask, out_p.t(), probs.t(), c.dropout);
  attention_forward(q.t(), k.t(), v.t(), c.heads, scale, mask, out_l.t(),
                    AttentionSaved::row_statistics(lse.t()), c.dropout);
  EXPECT_EQ(out_l.data, out_p.data) << "the forward is the same computation either way";

  // Each row's log-sum-exp against double precision over its visible keys.
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < c.q_len; ++i) {
        double sum = 0;
        bool any = false;
        for (int64_t j = 0; j < c.k_len; ++j) {
          bool visible = (!c.padding || padding[size_t(b * c.k_len + j)]) &&
                         (!c.causal || j <= i + c.past);
          if (!visible) continue;
          double s = 0;
          for (int64_t e = 0; e < c.head_dim; ++e)
            s += double(q.data[size_t((b * c.q_len + i) * d + h * c.head_dim + e)]) *
                 k.data[size_t((b * c.k_len + j) * d + h * c.head_dim + e)];
          s = s * scale + (c.bias ? bias.data[size_t((h * c.q_len + i) * c.k_len + j)] : 0.0);
          sum += std::exp(s);
          any = true;
        }
        const float got = lse.data[size_t((b * c.heads + h) * c.q_len + i)];
        if (any) {
          EXPECT_NEAR(got, std::log(sum), 2e-6 * std::max(1.0, std::abs(std::log(sum))));
        }
      }

  auto backward = [&](const AttentionSaved& saved, const AttentionMask& m) {
    std::vector<Floats> g{Floats({c.batch, c.q_len, d}), Floats({c.batch, c.k_len, d}),
                          Floats({c.batch, c.k_len, d}), Floats({c.batch, c.heads, c.q_len, c.k_len})};
    attention_backward(dout.t(), q.t(), k.t(), v.t(), saved, c.heads, scale, c.dropout, g[0].t(),
                       g[1].t(), g[2].t(), g[3].t(), m);
    return g;
  };
  std::vector<Floats> from_probs = backward(probs.t(), mask);
  std::vector<Floats> recomputed = backward(AttentionSaved::row_statistics(lse.t()), mask);
  const char* names[] = {"dq", "dk", "dv", "d_scores"};
  // exp(s - lse) against exp(s - max) / sum: a few float roundings apart, in P and so in all
  // four gradients, relative to their largest element: measured up to 4.4e-7, bounded at 2e-6.
  for (size_t t = 0; t < 4; ++t) {
    const double diff = relative_difference(recomputed[t].data, from_probs[t].data);
    std::printf("  %s: recomputed vs stored probs, max diff %.1e of the largest\n", names[t], diff);
    EXPECT_LE(diff, 2e-6) << names[t];
  }
  // The recomputation reads the forward's mask: without it the gradients are others.
  if (c.padding || c.causal || c.bias) {
    std::vector<Floats> maskless = backward(AttentionSaved::row_statistics(lse.t()), {});
    EXPECT_GT(relative_difference(maskless[0].data, from_probs[0].data), 1e-2);
  }
}

}  // namespace

TEST(AttentionSaved, RecomputedBackwardWithoutMask) { check_recomputed_backward({}); }

TEST(AttentionSaved, RecomputedBackwardWithPaddingAndARowWithNoKey) {
  SavedCase c;
  c.padding = true;
  check_recomputed_backward(c);
}

TEST(AttentionSaved, RecomputedBackwardCausalWithPastAndPositionBias) {
  SavedCase c;
  c.causal = true;
  c.past = 2;
  c.bias = true;
  check_recomputed_backward(c);
}

TEST(AttentionSaved, RecomputedBackwardWithDropout) {
  SavedCase c;
  c.padding = true;
  c.bias = true;
  c.dropout = {0.3f, 5, 9};
  check_recomputed_backward(c);
}

TEST(AttentionSaved, TheBackwardNeedsOneOfThem) {
  Floats q({1, 2, 4}), k({1, 3, 4}), v({1, 3, 4}), g({1, 2, 4}), dq({1, 2, 4}), dk({1, 3, 4}),
      dv({1, 3, 4}), wrong({1, 2, 3});
  EXPECT_THROW(attention_backward(g.t(), q.t(), k.t(), v.t(), AttentionSaved{}, 1, 1.0f, {}, dq.t(),
                                  dk.t(), dv.t()),
               Error);
  EXPECT_THROW(attention_backward(g.t(), q.t(), k.t(), v.t(), AttentionSaved::row_statistics(wrong.t()),
                                  1, 1.0f, {}, dq.t(), dk.t(), dv.t()),
               Error);
  EXPECT_TRUE(attention_saves_probs(Device::cpu()));
  EXPECT_FALSE(attention_saves_probs(Device::cuda(0)));
}
