// Attention's two kinds of saved state (kernels/attention.h, AttentionSaved): a backward that
// recomputes the softmax from the rows' log-sum-exp, as the flash-style CUDA kernels do, gives
// the gradients of the backward that reads the stored probabilities, under every mask: key
// padding (with a row that sees no key), causality with a past, T5's position bias, dropout.
// On every backend.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "precis/kernels/attention.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

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

class AttentionSavedState : public KernelTest {
 protected:
  // Host values and their copy on the backend.
  struct Floats {
    std::vector<float> data;
    Tensor on;
  };
  Floats random_on_device(Shape s, std::mt19937& rng) {
    std::vector<float> data = random_floats(s.numel(), rng, -2.0f, 2.0f);
    Tensor t = on_device(data, s);
    return {std::move(data), t};
  }

  void check_recomputed_backward(const SavedCase& c) {
    std::mt19937 rng(11);
    const int64_t d = c.heads * c.head_dim;
    Floats q = random_on_device({c.batch, c.q_len, d}, rng),
           k = random_on_device({c.batch, c.k_len, d}, rng),
           v = random_on_device({c.batch, c.k_len, d}, rng),
           dout = random_on_device({c.batch, c.q_len, d}, rng),
           bias = random_on_device({c.heads, c.q_len, c.k_len}, rng);
    // Batch row 0 sees keys 0, 1, 3 and 5; row 1 sees none (HF makes such a row uniform).
    std::vector<int32_t> padding = {1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    AttentionMask mask;
    if (c.padding) mask.key_padding = on_device(padding, {2, 7});
    mask.causal = c.causal;
    mask.past = c.past;
    if (c.bias) mask.position_bias = bias.on;
    const float scale = 0.5f;

    Tensor out_p = filled({c.batch, c.q_len, d}), out_l = filled({c.batch, c.q_len, d});
    Tensor probs = filled({c.batch, c.heads, c.q_len, c.k_len}),
           lse_on = filled({c.batch, c.heads, c.q_len});
    attention_forward(q.on, k.on, v.on, c.heads, scale, mask, out_p, probs, c.dropout);
    attention_forward(q.on, k.on, v.on, c.heads, scale, mask, out_l,
                      AttentionSaved::row_statistics(lse_on), c.dropout);
    EXPECT_EQ(to_host(out_l), to_host(out_p)) << "the forward is the same computation either way";

    // Each row's log-sum-exp against double precision over its visible keys; 0 where none is.
    const std::vector<float> lse = to_host(lse_on);
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t h = 0; h < c.heads; ++h)
        for (int64_t i = 0; i < c.q_len; ++i) {
          double sum = 0;
          bool any = false;
          for (int64_t j = 0; j < c.k_len; ++j) {
            bool visible =
                (!c.padding || padding[size_t(b * c.k_len + j)]) && (!c.causal || j <= i + c.past);
            if (!visible) continue;
            double s = 0;
            for (int64_t e = 0; e < c.head_dim; ++e)
              s += double(q.data[size_t((b * c.q_len + i) * d + h * c.head_dim + e)]) *
                   k.data[size_t((b * c.k_len + j) * d + h * c.head_dim + e)];
            s = s * scale + (c.bias ? bias.data[size_t((h * c.q_len + i) * c.k_len + j)] : 0.0);
            sum += std::exp(s);
            any = true;
          }
          const float got = lse[size_t((b * c.heads + h) * c.q_len + i)];
          if (any) {
            EXPECT_NEAR(got, std::log(sum), 2e-6 * std::max(1.0, std::abs(std::log(sum))));
          } else {
            EXPECT_EQ(got, 0.0f) << "a row with no visible key";
          }
        }

    auto backward = [&](const AttentionSaved& saved, const AttentionMask& m) {
      std::vector<Tensor> g{filled({c.batch, c.q_len, d}), filled({c.batch, c.k_len, d}),
                            filled({c.batch, c.k_len, d}),
                            filled({c.batch, c.heads, c.q_len, c.k_len})};
      attention_backward(dout.on, q.on, k.on, v.on, saved, c.heads, scale, c.dropout, g[0], g[1],
                         g[2], g[3], m);
      std::vector<std::vector<float>> host;
      for (const Tensor& t : g) host.push_back(to_host(t));
      return host;
    };
    const auto from_probs = backward(probs, mask);
    const auto recomputed = backward(AttentionSaved::row_statistics(lse_on), mask);
    const char* names[] = {"dq", "dk", "dv", "d_scores"};
    // exp(s - lse) against exp(s - max) / sum: a few float roundings apart, in P and so in all
    // four gradients, relative to their largest element: measured up to 4.4e-7, bounded at 2e-6.
    for (size_t t = 0; t < 4; ++t) {
      const double diff = relative_difference(recomputed[t], from_probs[t]);
      std::printf("  %s: recomputed vs stored probs, max diff %.1e of the largest\n", names[t],
                  diff);
      EXPECT_LE(diff, 2e-6) << names[t];
    }
    // The recomputation reads the forward's mask: without it the gradients are others.
    if (c.padding || c.causal || c.bias) {
      const auto maskless = backward(AttentionSaved::row_statistics(lse_on), {});
      EXPECT_GT(relative_difference(maskless[0], from_probs[0]), 1e-2);
    }
    if (!device().is_cpu())
      expect_the_cpu_twins(c, q, k, v, dout, bias, padding, scale, {to_host(out_l), to_host(probs)},
                           recomputed);
  }

  // Another backend's forward (out, probs) and backward from the log-sum-exp against the CPU
  // twin's from the stored probs, the uniform row of no visible key included: within the
  // bound above.
  void expect_the_cpu_twins(const SavedCase& c, Floats& q, Floats& k, Floats& v, Floats& dout,
                            Floats& bias, std::vector<int32_t>& padding, float scale,
                            const std::vector<std::vector<float>>& forward,
                            const std::vector<std::vector<float>>& gradients) {
    auto host = [](std::vector<float>& x, Shape s) {
      return Tensor{x.data(), s, DType::F32, Device::cpu()};
    };
    const int64_t d = c.heads * c.head_dim;
    AttentionMask mask;
    if (c.padding)
      mask.key_padding = Tensor{padding.data(), Shape{2, 7}, DType::I32, Device::cpu()};
    mask.causal = c.causal;
    mask.past = c.past;
    if (c.bias) mask.position_bias = host(bias.data, {c.heads, c.q_len, c.k_len});
    std::vector<std::vector<float>> cpu_forward{
        std::vector<float>(size_t(c.batch * c.q_len * d)),
        std::vector<float>(size_t(c.batch * c.heads * c.q_len * c.k_len))};
    std::vector<std::vector<float>> cpu_gradients{std::vector<float>(size_t(c.batch * c.q_len * d)),
                                                  std::vector<float>(size_t(c.batch * c.k_len * d)),
                                                  std::vector<float>(size_t(c.batch * c.k_len * d)),
                                                  cpu_forward[1]};
    Tensor qh = host(q.data, {c.batch, c.q_len, d}), kh = host(k.data, {c.batch, c.k_len, d}),
           vh = host(v.data, {c.batch, c.k_len, d}),
           probs = host(cpu_forward[1], {c.batch, c.heads, c.q_len, c.k_len});
    attention_forward(qh, kh, vh, c.heads, scale, mask, host(cpu_forward[0], qh.shape), probs,
                      c.dropout);
    attention_backward(host(dout.data, qh.shape), qh, kh, vh, probs, c.heads, scale, c.dropout,
                       host(cpu_gradients[0], qh.shape), host(cpu_gradients[1], kh.shape),
                       host(cpu_gradients[2], vh.shape), host(cpu_gradients[3], probs.shape));
    const char* forward_names[] = {"out", "probs"};
    for (size_t t = 0; t < 2; ++t)
      EXPECT_LE(relative_difference(forward[t], cpu_forward[t]), 2e-6)
          << forward_names[t] << " vs the CPU";
    const char* names[] = {"dq", "dk", "dv", "d_scores"};
    for (size_t t = 0; t < 4; ++t)
      EXPECT_LE(relative_difference(gradients[t], cpu_gradients[t]), 2e-6)
          << names[t] << " vs the CPU";
  }
};

}  // namespace

TEST_P(AttentionSavedState, RecomputedBackwardWithoutMask) { check_recomputed_backward({}); }

TEST_P(AttentionSavedState, RecomputedBackwardWithPaddingAndARowWithNoKey) {
  SavedCase c;
  c.padding = true;
  check_recomputed_backward(c);
}

TEST_P(AttentionSavedState, RecomputedBackwardCausalWithPastAndPositionBias) {
  SavedCase c;
  c.causal = true;
  c.past = 2;
  c.bias = true;
  check_recomputed_backward(c);
}

TEST_P(AttentionSavedState, RecomputedBackwardWithDropout) {
  SavedCase c;
  c.padding = true;
  c.bias = true;
  c.dropout = {0.3f, 5, 9};
  check_recomputed_backward(c);
}

// Lengths over one tile of the CUDA kernels (16) and off its multiples, a head wider than
// their 64-column chunk, a causal past, bias and dropout.
TEST_P(AttentionSavedState, RecomputedBackwardOverSeveralTiles) {
  SavedCase c;
  c.batch = 1;
  c.heads = 2;
  c.q_len = 20;
  c.k_len = 37;
  c.head_dim = 70;
  c.causal = true;
  c.past = 3;
  c.bias = true;
  c.dropout = {0.2f, 8, 13};
  check_recomputed_backward(c);
}

TEST_P(AttentionSavedState, TheBackwardNeedsOneOfThem) {
  Tensor q = filled({1, 2, 4}), k = filled({1, 3, 4}), v = filled({1, 3, 4}), g = filled({1, 2, 4}),
         dq = filled({1, 2, 4}), dk = filled({1, 3, 4}), dv = filled({1, 3, 4}),
         wrong = filled({1, 2, 3});
  EXPECT_THROW(attention_backward(g, q, k, v, AttentionSaved{}, 1, 1.0f, {}, dq, dk, dv), Error);
  EXPECT_THROW(attention_backward(g, q, k, v, AttentionSaved::row_statistics(wrong), 1, 1.0f, {},
                                  dq, dk, dv),
               Error);
  // The CPU keeps the probabilities, the CUDA kernels only the rows' log-sum-exp.
  EXPECT_EQ(attention_saves_probs(device()), device().is_cpu());
}

INSTANTIATE_KERNEL_TEST(AttentionSavedState);
