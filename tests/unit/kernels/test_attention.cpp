// attention (kernels/attention.h): forward against a double reference of masked softmax
// attention (key padding, causal with a past, T5's additive position bias, dropout drawn from
// the same Philox bits), and backward against central differences of it, on every backend
// (the CUDA twin's flash-style kernels on cuda:0, the emulated backend).
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "precis/core/rng.h"
#include "precis/kernels/attention.h"

#include "attention_cases.h"
#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

// Each case names only the fields it changes (designated initializers); the others keep their
// defaults, which is what -Wmissing-field-initializers would flag.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// out (B, Tq, H*hd) of softmax(scale·q·kᵀ + bias + mask) (dropped out) · v, in double. `bias`
// is per batch row, (B, H, Tq, Tk), so that its gradient is the op's d_scores; empty: none.
RefVec attention_reference(const AttentionCase& c, const RefVec& q, const RefVec& k,
                           const RefVec& v, double scale, const RefVec& bias) {
  const int64_t d = c.heads * c.head_dim;
  RefVec out(size_t(c.batch * c.q_len * d));
  const uint64_t threshold = dropout_threshold(c.dropout.p);
  const double keep_scale = c.dropout.p > 0 ? double(1.0f / float(1.0 - double(c.dropout.p))) : 1.0;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < c.q_len; ++i) {
        RefVec s(size_t(c.k_len));
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
          if (!bias.empty()) s[j] += bias[((b * c.heads + h) * c.q_len + i) * c.k_len + j];
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

class AttentionKernel : public KernelTest {
 protected:
  // The case's masks, on the backend under test.
  AttentionMask mask_of(const AttentionCase& c, const std::vector<float>& bias) {
    AttentionMask mask;
    if (!c.key_padding.empty()) mask.key_padding = on_device(c.key_padding, {c.batch, c.k_len});
    mask.causal = c.causal;
    mask.past = c.past;
    if (c.position_bias) mask.position_bias = on_device(bias, {c.heads, c.q_len, c.k_len});
    return mask;
  }
  // The (H, Tq, Tk) bias repeated for each batch row, as the reference takes it.
  static RefVec bias_per_row_of(const AttentionCase& c, const std::vector<float>& bias) {
    RefVec per_row;
    for (int64_t b = 0; b < c.batch && c.position_bias; ++b)
      per_row.insert(per_row.end(), bias.begin(), bias.end());
    return per_row;
  }

  // The forward and backward against the reference; with `inference`, the forward alone as
  // inference calls it (nothing saved for a backward).
  void check(const AttentionCase& c, uint32_t seed, bool inference = false) {
    const int64_t d = c.heads * c.head_dim, B = c.batch, H = c.heads, Tq = c.q_len, Tk = c.k_len;
    const auto [q, k, v, G, bias] = AttentionInputs(c, seed);
    const float scale = float(1.0 / std::sqrt(double(c.head_dim)));
    const AttentionMask mask = mask_of(c, bias);
    const RefVec bias_per_row = bias_per_row_of(c, bias);

    Tensor qt = on_device(q, {B, Tq, d}), kt = on_device(k, {B, Tk, d}), vt = on_device(v, {B, Tk, d});
    Tensor out = filled({B, Tq, d}, 5.0f), probs = inference ? Tensor{} : filled({B, H, Tq, Tk});
    attention_forward(qt, kt, vt, H, scale, mask, out, probs, c.dropout);
    const RefVec qd = to_double(q), kd = to_double(k), vd = to_double(v), g = to_double(G);
    expect_near_reference(to_host(out), attention_reference(c, qd, kd, vd, scale, bias_per_row),
                          inference ? "inference forward" : "forward");
    if (inference) return;
    // probs are the softmax before dropout: every row sums to one.
    std::vector<float> p = to_host(probs);
    for (int64_t r = 0; r < B * H * Tq; ++r) {
      double s = 0;
      for (int64_t j = 0; j < Tk; ++j) s += p[r * Tk + j];
      EXPECT_NEAR(s, 1.0, 1e-6);
    }

    Tensor dq = filled({B, Tq, d}, 5.0f), dk = filled({B, Tk, d}, 5.0f), dv = filled({B, Tk, d}, 5.0f);
    Tensor d_scores = c.position_bias ? filled({B, H, Tq, Tk}, 5.0f) : Tensor{};
    attention_backward(on_device(G, {B, Tq, d}), qt, kt, vt, probs, H, scale, c.dropout, dq, dk, dv,
                       d_scores);
    auto loss = [&](const RefVec& qv, const RefVec& kv, const RefVec& vv, const RefVec& bv) {
      return dot_product(g, attention_reference(c, qv, kv, vv, scale, bv));
    };
    expect_near_reference(
        to_host(dq),
        finite_difference_gradient([&](const RefVec& x) { return loss(x, kd, vd, bias_per_row); }, qd),
        "dq");
    expect_near_reference(
        to_host(dk),
        finite_difference_gradient([&](const RefVec& x) { return loss(qd, x, vd, bias_per_row); }, kd),
        "dk");
    expect_near_reference(
        to_host(dv),
        finite_difference_gradient([&](const RefVec& x) { return loss(qd, kd, x, bias_per_row); }, vd),
        "dv");
    if (c.position_bias)
      expect_near_reference(
          to_host(d_scores),
          finite_difference_gradient([&](const RefVec& x) { return loss(qd, kd, vd, x); }, bias_per_row),
          "d_scores (=)");
  }
};

}  // namespace

TEST_P(AttentionKernel, NoMask) { check(AttentionCase{}, 10); }

TEST_P(AttentionKernel, KeyPadding) {
  AttentionCase c;
  c.key_padding = {1, 1, 1, 0, 0, 1, 0, 1, 1, 1};
  check(c, 11);
}

TEST_P(AttentionKernel, CausalWithPast) {
  check(AttentionCase{.q_len = 3, .k_len = 5, .causal = true, .past = 2}, 12);
}

TEST_P(AttentionKernel, CausalSelfAttentionWithKeyPadding) {
  check(causal_self_attention_with_key_padding(), 13);
}

TEST_P(AttentionKernel, CrossAttentionShapes) { check(cross_attention(), 14); }

// Attention dropout with a fixed mask (the spec's seed and stream): the reference draws the
// same bits element by element.
TEST_P(AttentionKernel, WithDropoutMatchesFiniteDifferences) {
  check(dropout_alone(), 15);
  check(dropout_with_masks(), 16);
}

// T5's self-attention: a position bias per head, the bias's gradient d_scores per batch row.
TEST_P(AttentionKernel, PositionBiasAndItsGradient) {
  check(position_bias_alone(), 18);
  check(position_bias_with_masks_and_dropout(), 19);
}

// Query and key lengths and head widths off the multiples of 8/16/32, with every mask at once.
TEST_P(AttentionKernel, OddShapes) {
  check(odd_shapes_with_padding(), 20);
  check(odd_shapes_with_every_mask(), 21);
  // One head 129 wide over 3 keys.
  check(AttentionCase{.batch = 1, .heads = 1, .q_len = 3, .k_len = 3, .head_dim = 129}, 22);
}

// Several tiles of queries and keys (attention_cases.h); then causal self-attention with a head
// wider than the kernels' 64-column chunk.
TEST_P(AttentionKernel, SeveralTilesOfQueriesAndKeys) {
  check(several_tiles_of_cross_attention(8), 23);
  check(AttentionCase{.batch = 1, .heads = 1, .q_len = 17, .k_len = 17, .head_dim = 70,
                      .causal = true},
        24);
}

// Inference's decoder steps, a few queries each (one token per row against its cache, an
// input's beams against its encoder keys), with nothing saved for a backward: against the
// double reference for 1, 4, 8 and 9 queries, heads of 64 and 24 (whole numbers of 16 and of
// 8 lanes) and of 70 and 5 (neither), with every kind of mask.
TEST_P(AttentionKernel, InferenceForwardOfFewQueries) {
  const AttentionCase cases[] = {
      {.batch = 3, .heads = 2, .q_len = 1, .k_len = 9, .head_dim = 64, .causal = true, .past = 8},
      {.batch = 2, .heads = 3, .q_len = 4, .k_len = 13, .head_dim = 70,
       .key_padding = keys_visible_except(26, {3, 12, 25})},
      {.batch = 1, .heads = 2, .q_len = 8, .k_len = 11, .head_dim = 5, .causal = true, .past = 3,
       .position_bias = true},
      {.batch = 2, .heads = 1, .q_len = 9, .k_len = 12, .head_dim = 16,
       .key_padding = keys_visible_except(24, {0, 23}), .causal = true, .past = 3},
      {.batch = 3, .heads = 2, .q_len = 4, .k_len = 10, .head_dim = 24,
       .key_padding = keys_visible_except(30, {2, 19}), .causal = true, .past = 6,
       .position_bias = true},
  };
  for (uint32_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    check(cases[i], 30 + i, /*inference=*/true);
  }
}

TEST_P(AttentionKernel, ProbsKeepTheSoftmaxBeforeDropout) {
  AttentionCase c;
  std::mt19937 rng(17);
  const int64_t d = c.heads * c.head_dim;
  Tensor q = on_device(random_floats(c.batch * c.q_len * d, rng), {c.batch, c.q_len, d}),
         k = on_device(random_floats(c.batch * c.k_len * d, rng), {c.batch, c.k_len, d}),
         v = on_device(random_floats(c.batch * c.k_len * d, rng), {c.batch, c.k_len, d});
  Tensor out = filled({c.batch, c.q_len, d}), plain = filled({c.batch, c.heads, c.q_len, c.k_len}),
         dropped = filled({c.batch, c.heads, c.q_len, c.k_len});
  attention_forward(q, k, v, c.heads, 0.5f, {}, out, plain);
  attention_forward(q, k, v, c.heads, 0.5f, {}, out, dropped, {0.3f, 1, 2});
  EXPECT_EQ(to_host(plain), to_host(dropped));
}

INSTANTIATE_KERNEL_TEST(AttentionKernel);
