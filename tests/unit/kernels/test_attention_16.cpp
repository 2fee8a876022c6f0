// attention's 16-bit CUDA twins (kernels/attention.h, kernels_cuda.h's attention_*): q, k, v,
// out, dout, dq, dk and dv in bf16 or fp16, the position bias, probs, log-sum-exps and d_scores
// in fp32. The reference is the CPU op on the same rounded values with the same mask, bias and
// dropout: each 16-bit result must be the CPU's rounded once, each fp32 one the CPU's within the
// fp32 tolerance. The cases are test_attention.cpp's and test_attention_saved.cpp's: encoder
// self-attention with key padding (and a batch row that sees no key), causal decoder
// self-attention over a KV cache, cross-attention, T5's position bias and its gradient, dropout,
// odd head widths and lengths over several of the kernels' tiles, and the backward from saved
// probs as well as from the log-sum-exps.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "precis/kernels/attention.h"

#include "attention_cases.h"
#include "kernel_test.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

// Each case names only the fields it changes (designated initializers); the others keep their
// defaults, which is what -Wmissing-field-initializers would flag.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// The CUDA twins take 16-bit heads of a multiple of 16 on tensor cores unless probs are kept:
// the forward up to 128 wide (kernels/cuda/attention_mma_kernels.cuh), the backward up to 64
// (attention_mma_backward_kernels.cuh). The other shapes take the scalar kernels, whose results
// are the CPU's rounded once.
bool on_tensor_cores(const AttentionCase& c, int64_t widest) {
  return c.head_dim % 16 == 0 && c.head_dim <= widest && !c.saved_probs;
}

// A result of the tensor cores against the CPU's fp32 `reference`, for a product one of whose
// factors is rounded to the 16-bit type first, as HF's autocast rounds it before its bf16
// matmul: P (dropped out) in out = P·v and dv = Pᵀ·dout, dS in dq = scale·dS·k and
// dk = scale·dSᵀ·q. Rounding to nearest moves a factor a by at most u·|a| + s (u = 2^-8 in bf16,
// 2^-11 in fp16; s = 2^-25, fp16's subnormal half-step, 0 in bf16), so element e of the product
// is within scale·(u·weighted[e] + s·plain[e]) of the reference, weighted[e] = Σ|a|·|b| and
// plain[e] = Σ|b| over its terms, before its one rounding to 16 bits (half an ulp), plus the
// fp32 tolerance for the products' summation order. A fragment read from the wrong lane, or a
// tile skipped where a row sees a key, is off by far more.
void expect_within_factor_rounding(const std::vector<float>& actual,
                                   const std::vector<float>& reference,
                                   const std::vector<double>& weighted,
                                   const std::vector<double>& plain, double scale, DType dtype,
                                   const std::string& what) {
  const double u = dtype == DType::BF16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  const double s = dtype == DType::BF16 ? 0.0 : std::ldexp(1.0, -25);
  ASSERT_EQ(actual.size(), reference.size()) << what;
  for (size_t e = 0; e < actual.size(); ++e) {
    const double r = reference[e], drift = scale * (u * weighted[e] + s * plain[e]);
    const double bound = drift + 0.5 * ulp_16(std::abs(r) + drift, dtype) +
                         kFp32Tolerance * std::max(1.0, std::abs(r));
    EXPECT_NEAR(double(actual[e]), r, bound) << what << " element " << e << " (" << dtype_name(dtype) << ")";
  }
}

// The sums of expect_within_factor_rounding for out, dv, dq and dk from the CPU's probs (times
// 1/(1-p) under dropout: a bound on the dropped-out weights) and dS.
struct FactorSums {
  std::vector<double> out_w, out_p, dv_w, dv_p, dq_w, dq_p, dk_w, dk_p;

  FactorSums(const AttentionCase& c, const std::vector<float>& q, const std::vector<float>& k,
             const std::vector<float>& v, const std::vector<float>& dout,
             const std::vector<float>& probs, const std::vector<float>& d_scores) {
    const int64_t B = c.batch, H = c.heads, Tq = c.q_len, Tk = c.k_len, hd = c.head_dim, d = H * hd;
    const double keep = c.dropout.p > 0 ? 1.0 / (1.0 - c.dropout.p) : 1.0;
    for (auto* sums : {&out_w, &out_p, &dq_w, &dq_p}) sums->assign(size_t(B * Tq * d), 0.0);
    for (auto* sums : {&dv_w, &dv_p, &dk_w, &dk_p}) sums->assign(size_t(B * Tk * d), 0.0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < Tq; ++i)
          for (int64_t j = 0; j < Tk; ++j) {
            const size_t score = size_t(((b * H + h) * Tq + i) * Tk + j);
            const double w = probs[score] * keep, ds = std::abs(d_scores[score]);
            for (int64_t col = 0; col < hd; ++col) {
              const size_t qi = size_t((b * Tq + i) * d + h * hd + col);
              const size_t kj = size_t((b * Tk + j) * d + h * hd + col);
              out_w[qi] += w * std::abs(v[kj]);
              out_p[qi] += std::abs(v[kj]);
              dv_w[kj] += w * std::abs(dout[qi]);
              dv_p[kj] += std::abs(dout[qi]);
              dq_w[qi] += ds * std::abs(k[kj]);
              dq_p[qi] += std::abs(k[kj]);
              dk_w[kj] += ds * std::abs(q[qi]);
              dk_p[kj] += std::abs(q[qi]);
            }
          }
  }
};

class AttentionKernel16 : public HalfKernelTest {
 protected:
  void check(const AttentionCase& c, uint32_t seed) {
    const int64_t B = c.batch, H = c.heads, Tq = c.q_len, Tk = c.k_len, d = H * c.head_dim;
    const Shape q_shape{B, Tq, d}, k_shape{B, Tk, d}, plane{B, H, Tq, Tk}, rows{B, H, Tq};
    auto [q, k, v, G, bias] = AttentionInputs(c, seed);
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
                       on_cpu(dk, k_shape), on_cpu(dv, k_shape), on_cpu(d_scores, plane), cpu_mask);
    const bool forward_on_tensor_cores = on_tensor_cores(c, 128);
    const bool backward_on_tensor_cores = on_tensor_cores(c, 64);
    std::optional<FactorSums> sums;
    if (forward_on_tensor_cores) sums.emplace(c, q, k, v, G, probs, d_scores);

    // The outputs start as 9s, so an element the kernels skip shows.
    Tensor out_t = filled_16(q_shape, 9.0f), lse_t = filled(rows, 9.0f);
    AttentionSaved saved = AttentionSaved::row_statistics(lse_t);
    if (c.saved_probs) saved.probs = filled(plane, 9.0f);
    attention_forward(qt, kt, vt, H, scale, mask, out_t, saved, c.dropout);
    if (forward_on_tensor_cores)
      expect_within_factor_rounding(to_host(out_t), out, sums->out_w, sums->out_p, 1.0, dtype(), "out");
    else
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
    if (backward_on_tensor_cores) {
      expect_within_factor_rounding(to_host(dq_t), dq, sums->dq_w, sums->dq_p, scale, dtype(), "dq");
      expect_within_factor_rounding(to_host(dk_t), dk, sums->dk_w, sums->dk_p, scale, dtype(), "dk");
      expect_within_factor_rounding(to_host(dv_t), dv, sums->dv_w, sums->dv_p, 1.0, dtype(), "dv");
    } else {
      expect_rounded_from(to_host(dq_t), dq, dtype(), "dq");
      expect_rounded_from(to_host(dk_t), dk, dtype(), "dk");
      expect_rounded_from(to_host(dv_t), dv, dtype(), "dv");
    }
    if (c.position_bias)
      expect_near_reference(to_host(d_scores_t), to_double(d_scores), "d_scores");
  }
};

}  // namespace

TEST_P(AttentionKernel16, NoMask) { check(AttentionCase{}, 10); }

// BART's encoder: self-attention over padded inputs; batch row 1 pads every key, so its rows
// see none and are uniform.
TEST_P(AttentionKernel16, EncoderSelfAttentionWithKeyPadding) {
  AttentionCase c{.q_len = 6, .k_len = 6};
  c.key_padding = {1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1};
  check(c, 11);
  c.key_padding = {1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0};
  check(c, 12);
}

// The decoder's self-attention: causal over a KV cache of `past` earlier keys (one step, then
// three queries), and causal with padding.
TEST_P(AttentionKernel16, CausalDecoderSelfAttentionWithPast) {
  check(AttentionCase{.q_len = 1, .k_len = 5, .causal = true, .past = 4}, 13);
  check(AttentionCase{.q_len = 3, .k_len = 5, .causal = true, .past = 2}, 14);
  check(causal_self_attention_with_key_padding(), 15);
}

TEST_P(AttentionKernel16, CrossAttention) { check(cross_attention(), 16); }

TEST_P(AttentionKernel16, Dropout) {
  check(dropout_alone(), 17);
  check(dropout_with_masks(), 18);
}

// T5's self-attention: the fp32 position bias per head, its fp32 gradient d_scores.
TEST_P(AttentionKernel16, PositionBiasAndItsGradient) {
  check(position_bias_alone(), 19);
  check(position_bias_with_masks_and_dropout(), 20);
}

// The probs a caller may still ask for stay fp32, and the backward reads them.
TEST_P(AttentionKernel16, SavedProbs) {
  check(AttentionCase{.key_padding = {1, 1, 0, 1, 1, 0, 0, 0, 0, 0}, .causal = true, .past = 2,
                      .dropout = {0.3f, 5, 9}, .position_bias = true, .saved_probs = true},
        21);
}

// Head widths off the multiples of 32 (7, 70: over the kernels' 64-column chunk; 129) and
// lengths over one tile of 16 queries or keys and off its multiples, with every mask at once.
TEST_P(AttentionKernel16, OddShapesOverSeveralTiles) {
  check(odd_shapes_with_every_mask(), 22);
  check(several_tiles_of_cross_attention(70), 23);
  check(AttentionCase{.batch = 1, .heads = 1, .q_len = 17, .k_len = 17, .head_dim = 129,
                      .causal = true},
        24);
}

// Heads the tensor-core kernels take (16 to 128 wide; the backward to 64), over several of
// their 64-query and 64-key tiles: BART's encoder with a batch row padded past key 40 (its
// second key tile is skipped) and one that pads every key (uniform rows: no tile skipped);
// causal self-attention where the last query's limit is the first key of the next tile
// (skipping that tile drops a key the query sees); T5's bias under causality and dropout;
// cross-attention 128 wide and heads 80 wide (the scalar backward from the tensor-core
// forward's log-sum-exps).
TEST_P(AttentionKernel16, HeadsOnTensorCores) {
  std::vector<int32_t> padding(3 * 70, 1);
  for (int64_t j = 41; j < 70; ++j) padding[size_t(70 + j)] = 0;
  for (int64_t j = 0; j < 70; ++j) padding[size_t(140 + j)] = 0;
  check(AttentionCase{.batch = 3, .heads = 1, .q_len = 70, .k_len = 70, .head_dim = 64,
                      .key_padding = padding},
        25);
  check(AttentionCase{.batch = 1, .heads = 1, .q_len = 64, .k_len = 65, .head_dim = 32,
                      .causal = true, .past = 1},
        26);
  check(AttentionCase{.batch = 1, .heads = 2, .q_len = 67, .k_len = 67, .head_dim = 16,
                      .key_padding = keys_visible_except(67, {0, 1, 30}), .causal = true,
                      .dropout = {0.1f, 7, 2}, .position_bias = true},
        27);
  check(AttentionCase{.batch = 1, .heads = 1, .q_len = 20, .k_len = 70, .head_dim = 128,
                      .key_padding = keys_visible_except(70, {5, 69})},
        28);
  check(AttentionCase{.batch = 1, .heads = 1, .q_len = 9, .k_len = 9, .head_dim = 80}, 29);
}

// One query tile over more keys than a block walks (kernels/cuda/attention_mma_kernels.cuh's
// kMmaSplitKeys, 128): the keys split over blocks, each block's partials merged by a second
// launch. A decoding step's query over a causal cache of 300 keys (3 splits) where batch row 1
// pads keys 128 to 255, so its middle split sees no key (it must add nothing), and pads every
// key of batch row 2's last split; a sequence's 4 beams over 200 encoder keys, one batch row
// padding every key (uniform rows: each split adds its share of every key); T5's bias with
// causality over a past and dropout, 3 queries over 140 keys (a second split of 12 keys).
TEST_P(AttentionKernel16, KeysSplitOverBlocks) {
  std::vector<int32_t> padding(3 * 300, 1);
  for (int64_t j = 128; j < 256; ++j) padding[size_t(300 + j)] = 0;
  for (int64_t j = 256; j < 300; ++j) padding[size_t(600 + j)] = 0;
  check(AttentionCase{.batch = 3,
                      .heads = 2,
                      .q_len = 1,
                      .k_len = 300,
                      .head_dim = 64,
                      .key_padding = padding,
                      .causal = true,
                      .past = 299},
        30);
  std::vector<int32_t> beams_padding(2 * 200, 1);
  for (int64_t j = 0; j < 200; ++j) beams_padding[size_t(200 + j)] = 0;
  beams_padding[7] = 0;
  check(AttentionCase{.batch = 2,
                      .heads = 1,
                      .q_len = 4,
                      .k_len = 200,
                      .head_dim = 32,
                      .key_padding = beams_padding},
        31);
  check(AttentionCase{.batch = 1,
                      .heads = 2,
                      .q_len = 3,
                      .k_len = 140,
                      .head_dim = 16,
                      .key_padding = keys_visible_except(140, {0, 129}),
                      .causal = true,
                      .past = 137,
                      .dropout = {0.1f, 7, 4},
                      .position_bias = true},
        32);
}

// One dtype for the activations, fp32 for the rest: a mix is refused with the tensors named.
TEST_P(AttentionKernel16, MixedDtypesAreRefused) {
  const DType other = other_16();
  Tensor q = filled_16({1, 2, 4}), k = filled_16({1, 3, 4}), v = filled_16({1, 3, 4}),
         out = filled_16({1, 2, 4}), lse = filled({1, 1, 2}), k32 = filled({1, 3, 4});
  const AttentionSaved saved = AttentionSaved::row_statistics(lse);
  Tensor k_other = k;
  k_other.dtype = other;
  EXPECT_CONTAINS(error_of([&] { attention_forward(q, k32, v, 1, 1.0f, {}, out, saved); }),
                  k32.describe());
  EXPECT_CONTAINS(error_of([&] { attention_forward(q, k_other, v, 1, 1.0f, {}, out, saved); }),
                  k_other.describe());
  Tensor lse_16 = filled_16({1, 1, 2});
  EXPECT_CONTAINS(error_of([&] {
                    attention_forward(q, k, v, 1, 1.0f, {}, out,
                                      AttentionSaved::row_statistics(lse_16));
                  }),
                  "log_sum_exp " + lse_16.describe());
  AttentionMask mask;
  mask.position_bias = filled_16({1, 2, 3});
  EXPECT_CONTAINS(error_of([&] { attention_forward(q, k, v, 1, 1.0f, mask, out, saved); }),
                  "position bias " + mask.position_bias.describe());

  Tensor dq = filled_16({1, 2, 4}), dk = filled_16({1, 3, 4}), dv32 = filled({1, 3, 4});
  EXPECT_CONTAINS(
      error_of([&] { attention_backward(out, q, k, v, saved, 1, 1.0f, {}, dq, dk, dv32); }),
      dv32.describe());
  Tensor d_scores_16 = filled_16({1, 1, 2, 3}), dv = filled_16({1, 3, 4});
  EXPECT_CONTAINS(error_of([&] {
                    attention_backward(out, q, k, v, saved, 1, 1.0f, {}, dq, dk, dv, d_scores_16);
                  }),
                  "d_scores " + d_scores_16.describe());
}

INSTANTIATE_HALF_KERNEL_TEST(AttentionKernel16);
