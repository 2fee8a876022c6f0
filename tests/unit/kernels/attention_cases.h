// The attention cases the fp32 op test (test_attention.cpp: against a double reference and its
// central differences) and the 16-bit twins' test (test_attention_16.cpp: against the CPU op on
// the same rounded values) both run, written once, and the inputs both draw from a case's seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

#include "precis/core/rng.h"
#include "precis/kernels/dropout.h"

#include "kernel_test.h"

namespace precis::testing {

// Each case names only the fields it changes (designated initializers); the others keep their
// defaults, which is what -Wmissing-field-initializers would flag.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct AttentionCase {
  int64_t batch = 2, heads = 2, q_len = 3, k_len = 5, head_dim = 4;
  std::vector<int32_t> key_padding;  // (B, Tk) or empty
  bool causal = false;
  int64_t past = 0;
  DropoutSpec dropout;
  bool position_bias = false;  // (H, Tq, Tk) fp32 added to the scaled scores; gradient d_scores
  bool saved_probs = false;    // the 16-bit twins also keep probs, and the backward reads them
};

// A key padding mask of `keys` (B·Tk) visible keys but the `hidden` ones.
inline std::vector<int32_t> keys_visible_except(size_t keys, std::initializer_list<size_t> hidden) {
  std::vector<int32_t> padding(keys, 1);
  for (size_t key : hidden) padding[key] = 0;
  return padding;
}

// Causal self-attention over padded inputs, without a past.
inline AttentionCase causal_self_attention_with_key_padding() {
  return {.q_len = 4, .k_len = 4, .key_padding = {1, 1, 1, 0, 1, 1, 1, 1}, .causal = true};
}

// A decoder's 2 queries over 7 encoder keys, some padded, 3 heads 2 wide.
inline AttentionCase cross_attention() {
  return {.batch = 3, .heads = 3, .q_len = 2, .k_len = 7, .head_dim = 2,
          .key_padding = keys_visible_except(21, {6, 12, 13})};
}

// Attention dropout with a fixed mask (the spec's seed and stream), half the probabilities
// dropped; then under padding and causality with a past.
inline AttentionCase dropout_alone() {
  return {.dropout = {0.5f, 1234, dropout_stream(3, 0, 1, 0)}};
}
inline AttentionCase dropout_with_masks() {
  return {.key_padding = {1, 1, 1, 1, 0, 1, 1, 0, 1, 1}, .causal = true, .past = 2,
          .dropout = {0.2f, 99, 7}};
}

// T5's self-attention: a position bias per head; then causal over padding, with dropout.
inline AttentionCase position_bias_alone() { return {.position_bias = true}; }
inline AttentionCase position_bias_with_masks_and_dropout() {
  return {.q_len = 5, .k_len = 5, .key_padding = {1, 1, 1, 1, 0, 1, 1, 1, 1, 1}, .causal = true,
          .dropout = {0.1f, 5, 6}, .position_bias = true};
}

// Query and key lengths and head widths off the multiples of 8/16/32, with padding; then with
// every mask at once (causal over a past of 32, the bias, dropout).
inline AttentionCase odd_shapes_with_padding() {
  return {.batch = 2, .heads = 3, .q_len = 5, .k_len = 37, .head_dim = 7,
          .key_padding = keys_visible_except(74, {36, 37 + 20, 37 + 35})};
}
inline AttentionCase odd_shapes_with_every_mask() {
  AttentionCase c = odd_shapes_with_padding();
  c.causal = true;
  c.past = 32;
  c.position_bias = true;
  c.dropout = {0.1f, 17, 3};
  return c;
}

// Query and key lengths over one tile of the CUDA kernels (16) and off its multiples, so every
// kernel walks several tiles and stops inside one: cross-attention with padding, bias and
// dropout, heads `head_dim` wide.
inline AttentionCase several_tiles_of_cross_attention(int64_t head_dim) {
  return {.batch = 2, .heads = 2, .q_len = 20, .k_len = 37, .head_dim = head_dim,
          .key_padding = keys_visible_except(74, {3, 17, 36, 37 + 16}), .dropout = {0.2f, 41, 5},
          .position_bias = true};
}

#pragma GCC diagnostic pop

// A case's inputs, drawn from `seed` in this order: q and k in [-2, 2), v and the output's
// gradient dout in [-1, 1), and the (H, Tq, Tk) position bias in [-2, 2) where the case has one.
struct AttentionInputs {
  std::vector<float> q, k, v, dout, bias;

  AttentionInputs(const AttentionCase& c, uint32_t seed) {
    std::mt19937 rng(seed);
    const int64_t d = c.heads * c.head_dim;
    q = random_floats(c.batch * c.q_len * d, rng, -2.0f, 2.0f);
    k = random_floats(c.batch * c.k_len * d, rng, -2.0f, 2.0f);
    v = random_floats(c.batch * c.k_len * d, rng);
    dout = random_floats(c.batch * c.q_len * d, rng);
    if (c.position_bias) bias = random_floats(c.heads * c.q_len * c.k_len, rng, -2.0f, 2.0f);
  }
};

}  // namespace precis::testing
