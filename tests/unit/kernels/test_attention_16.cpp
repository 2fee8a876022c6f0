// attention's 16-bit CUDA twins (kernels/attention.h, kernels_cuda.h's attention_*_16): q, k, v,
// out, dout, dq, dk and dv in bf16 or fp16, the position bias, probs, log-sum-exps and d_scores
// in fp32. The reference is the CPU op on the same rounded values with the same mask, bias and
// dropout: each 16-bit result must be the CPU's rounded once, each fp32 one the CPU's within the
// fp32 tolerance. The cases are test_attention.cpp's and test_attention_saved.cpp's: encoder
// self-attention with key padding (and a batch row that sees no key), causal decoder
// self-attention over a KV cache, cross-attention, T5's position bias and its gradient, dropout,
// odd head widths and lengths over several of the kernels' tiles, and the backward from saved
// probs as well as from the log-sum-exps.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "precis/kernels/attention.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

// Each case names only the fields it changes (designated initializers); the others keep their
// defaults, which is what -Wmissing-field-initializers would flag.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct HalfAttentionCase {
  int64_t batch = 2, heads = 2, q_len = 3, k_len = 5, head_dim = 4;
  std::vector<int32_t> key_padding;  // (B, Tk) or empty
  bool causal = false;
  int64_t past = 0;
  DropoutSpec dropout;
  bool position_bias = false;  // (H, Tq, Tk), fp32, and its gradient d_scores
  bool saved_probs = false;    // the forward also keeps probs, and the backward reads them
};

class AttentionKernel16 : public HalfKernelTest {
 protected:
  void check(const HalfAttentionCase& c, uint32_t seed) {
    std::mt19937 rng(seed);
    const int64_t B = c.batch, H = c.heads, Tq = c.q_len, Tk = c.k_len, d = H * c.head_dim;
    const Shape q_shape{B, Tq, d}, k_shape{B, Tk, d}, plane{B, H, Tq, Tk}, rows{B, H, Tq};
    std::vector<float> q = random_floats(B * Tq * d, rng, -2.0f, 2.0f),
                       k = random_floats(B * Tk * d, rng, -2.0f, 2.0f),
                       v = random_floats(B * Tk * d, rng), G = random_floats(B * Tq * d, rng);
    std::vector<float> bias = c.position_bias ? random_floats(H * Tq * Tk, rng, -2.0f, 2.0f)
                                              : std::vector<float>{};
    std::vector<int32_t> padding = c.key_padding;
    const float scale = float(1.0 / std::sqrt(double(c.head_dim)));
    // on_device_16 rounds q, k, v and G in place: the CPU reference reads the same values.
    Tensor qt = on_device_16(q, q_shape), kt = on_device_16(k, k_shape),
           vt = on_device_16(v, k_shape), Gt = on_device_16(G, q_shape);
    AttentionMask mask, cpu_mask;
    mask.causal = cpu_mask.causal = c.causal;
    mask.past = cpu_mask.past = c.past;
    if (!padding.empty()) {
      mask.key_padding = on_device(padding, {B, Tk});
      cpu_mask.key_padding = on_cpu(padding, {B, Tk});
    }
    if (c.position_bias) {
      mask.position_bias = on_device(bias, {H, Tq, Tk});
      cpu_mask.position_bias = on_cpu(bias, {H, Tq, Tk});
    }

    // The CPU op keeps both probs and log-sum-exps; its backward reads the probs.
    std::vector<float> out(size_t(q_shape.numel())), probs(size_t(plane.numel())),
        lse(size_t(rows.numel())), dq(out.size()), dk(size_t(k_shape.numel())), dv(dk.size()),
        d_scores(probs.size());
    AttentionSaved cpu_saved(on_cpu(probs, plane));
    cpu_saved.log_sum_exp = on_cpu(lse, rows);
    attention_forward(on_cpu(q, q_shape), on_cpu(k, k_shape), on_cpu(v, k_shape), H, scale,
                      cpu_mask, on_cpu(out, q_shape), cpu_saved, c.dropout);
    attention_backward(on_cpu(G, q_shape), on_cpu(q, q_shape), on_cpu(k, k_shape),
                       on_cpu(v, k_shape), cpu_saved, H, scale, c.dropout, on_cpu(dq, q_shape),
                       on_cpu(dk, k_shape), on_cpu(dv, k_shape),
                       c.position_bias ? on_cpu(d_scores, plane) : Tensor{}, cpu_mask);

    // The outputs start as 9s, so an element the kernels skip shows.
    Tensor out_t = filled_16(q_shape, 9.0f), lse_t = filled(rows, 9.0f);
    AttentionSaved saved = AttentionSaved::row_statistics(lse_t);
    if (c.saved_probs) saved.probs = filled(plane, 9.0f);
    attention_forward(qt, kt, vt, H, scale, mask, out_t, saved, c.dropout);
    expect_rounded_from(to_host(out_t), out, dtype(), "out");
    expect_near_reference(to_host(lse_t), to_double(lse), "log_sum_exp");
    if (c.saved_probs) expect_near_reference(to_host(saved.probs), to_double(probs), "probs");

    Tensor dq_t = filled_16(q_shape, 9.0f), dk_t = filled_16(k_shape, 9.0f),
           dv_t = filled_16(k_shape, 9.0f);
    Tensor d_scores_t = c.position_bias ? filled(plane, 9.0f) : Tensor{};
    const AttentionSaved from =
        c.saved_probs ? AttentionSaved(saved.probs) : AttentionSaved::row_statistics(lse_t);
    attention_backward(Gt, qt, kt, vt, from, H, scale, c.dropout, dq_t, dk_t, dv_t, d_scores_t,
                       mask);
    expect_rounded_from(to_host(dq_t), dq, dtype(), "dq");
    expect_rounded_from(to_host(dk_t), dk, dtype(), "dk");
    expect_rounded_from(to_host(dv_t), dv, dtype(), "dv");
    if (c.position_bias)
      expect_near_reference(to_host(d_scores_t), to_double(d_scores), "d_scores");
  }
};

}  // namespace

TEST_P(AttentionKernel16, NoMask) { check(HalfAttentionCase{}, 10); }

// BART's encoder: self-attention over padded inputs; batch row 1 pads every key, so its rows
// see none and are uniform.
TEST_P(AttentionKernel16, EncoderSelfAttentionWithKeyPadding) {
  HalfAttentionCase c{.q_len = 6, .k_len = 6};
  c.key_padding = {1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1};
  check(c, 11);
  c.key_padding = {1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0};
  check(c, 12);
}

// The decoder's self-attention: causal over a KV cache of `past` earlier keys (one step, then
// three queries), and causal with padding.
TEST_P(AttentionKernel16, CausalDecoderSelfAttentionWithPast) {
  check(HalfAttentionCase{.q_len = 1, .k_len = 5, .causal = true, .past = 4}, 13);
  check(HalfAttentionCase{.q_len = 3, .k_len = 5, .causal = true, .past = 2}, 14);
  HalfAttentionCase c{.q_len = 4, .k_len = 4, .causal = true};
  c.key_padding = {1, 1, 1, 0, 1, 1, 1, 1};
  check(c, 15);
}

TEST_P(AttentionKernel16, CrossAttention) {
  HalfAttentionCase c{.batch = 3, .heads = 3, .q_len = 2, .k_len = 7, .head_dim = 2};
  c.key_padding.assign(21, 1);
  c.key_padding[6] = c.key_padding[13] = c.key_padding[12] = 0;
  check(c, 16);
}

TEST_P(AttentionKernel16, Dropout) {
  HalfAttentionCase c;
  c.dropout = {0.5f, 1234, dropout_stream(3, 0, 1, 0)};
  check(c, 17);
  c.key_padding = {1, 1, 1, 1, 0, 1, 1, 0, 1, 1};
  c.causal = true;
  c.past = 2;
  c.dropout = {0.2f, 99, 7};
  check(c, 18);
}

// T5's self-attention: the fp32 position bias per head, its fp32 gradient d_scores.
TEST_P(AttentionKernel16, PositionBiasAndItsGradient) {
  HalfAttentionCase c{.position_bias = true};
  check(c, 19);
  c.causal = true;
  c.q_len = c.k_len = 5;
  c.key_padding = {1, 1, 1, 1, 0, 1, 1, 1, 1, 1};
  c.dropout = {0.1f, 5, 6};
  check(c, 20);
}

// The probs a caller may still ask for stay fp32, and the backward reads them.
TEST_P(AttentionKernel16, SavedProbs) {
  HalfAttentionCase c{.position_bias = true, .saved_probs = true};
  c.key_padding = {1, 1, 0, 1, 1, 0, 0, 0, 0, 0};
  c.causal = true;
  c.past = 2;
  c.dropout = {0.3f, 5, 9};
  check(c, 21);
}

// Head widths off the multiples of 32 (7, 70: over the kernels' 64-column chunk; 129) and
// lengths over one tile of 16 queries or keys and off its multiples, with every mask at once.
TEST_P(AttentionKernel16, OddShapesOverSeveralTiles) {
  HalfAttentionCase c{.batch = 2, .heads = 3, .q_len = 5, .k_len = 37, .head_dim = 7};
  c.key_padding.assign(size_t(c.batch * c.k_len), 1);
  c.key_padding[36] = c.key_padding[37 + 20] = c.key_padding[37 + 35] = 0;
  c.causal = true;
  c.past = 32;
  c.position_bias = true;
  c.dropout = {0.1f, 17, 3};
  check(c, 22);
  HalfAttentionCase wide{.batch = 2, .heads = 2, .q_len = 20, .k_len = 37, .head_dim = 70};
  wide.key_padding.assign(size_t(wide.batch * wide.k_len), 1);
  wide.key_padding[3] = wide.key_padding[17] = wide.key_padding[36] = wide.key_padding[53] = 0;
  wide.position_bias = true;
  wide.dropout = {0.2f, 41, 5};
  check(wide, 23);
  check(HalfAttentionCase{.batch = 1, .heads = 1, .q_len = 17, .k_len = 17, .head_dim = 129,
                          .causal = true},
        24);
}

// One dtype for the activations, fp32 for the rest: a mix is refused with the tensors named.
TEST_P(AttentionKernel16, MixedDtypesAreRefused) {
  const DType other = dtype() == DType::BF16 ? DType::F16 : DType::BF16;
  auto expect_refused = [](auto&& call, const std::string& named) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one naming " << named;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  Tensor q = filled_16({1, 2, 4}), k = filled_16({1, 3, 4}), v = filled_16({1, 3, 4}),
         out = filled_16({1, 2, 4}), lse = filled({1, 1, 2}), k32 = filled({1, 3, 4});
  const AttentionSaved saved = AttentionSaved::row_statistics(lse);
  Tensor k_other = k;
  k_other.dtype = other;
  expect_refused([&] { attention_forward(q, k32, v, 1, 1.0f, {}, out, saved); }, k32.describe());
  expect_refused([&] { attention_forward(q, k_other, v, 1, 1.0f, {}, out, saved); },
                 k_other.describe());
  Tensor lse_16 = filled_16({1, 1, 2});
  expect_refused(
      [&] { attention_forward(q, k, v, 1, 1.0f, {}, out, AttentionSaved::row_statistics(lse_16)); },
      "log_sum_exp " + lse_16.describe());
  AttentionMask mask;
  mask.position_bias = filled_16({1, 2, 3});
  expect_refused([&] { attention_forward(q, k, v, 1, 1.0f, mask, out, saved); },
                 "position bias " + mask.position_bias.describe());

  Tensor dq = filled_16({1, 2, 4}), dk = filled_16({1, 3, 4}), dv32 = filled({1, 3, 4});
  expect_refused([&] { attention_backward(out, q, k, v, saved, 1, 1.0f, {}, dq, dk, dv32); },
                 dv32.describe());
  Tensor d_scores_16 = filled_16({1, 1, 2, 3}), dv = filled_16({1, 3, 4});
  expect_refused(
      [&] { attention_backward(out, q, k, v, saved, 1, 1.0f, {}, dq, dk, dv, d_scores_16); },
      "d_scores " + d_scores_16.describe());
}

INSTANTIATE_HALF_KERNEL_TEST(AttentionKernel16);
