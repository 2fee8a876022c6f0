// A beam-search cache read in place (AttentionMask::key_rows, kernels/attention.h): attention over
// a slab whose rows share prefixes, each position read from the row its key_rows entry names,
// gives the bits of attention over the same keys gathered into rows of their own; with every
// mask kind. And what it cannot read is refused with the reason.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernel_test.h"
#include "precis/kernels/attention.h"
#include "test_support.h"

namespace precis {
namespace {

using testing::error_of;
using testing::on_cpu;
using testing::random_floats;

// Heads of 64 and of 24: the decoding kernel's 16 and 8 lanes (AVX-512 builds run both).
constexpr int64_t kHeadDims[] = {64, 24};

struct InPlaceCache {
  static constexpr int64_t kRows = 5, kCapacity = 11, kLive = 7, kHeads = 2;
  const int64_t width;
  std::vector<float> q, k, v, gathered_k, gathered_v;
  std::vector<int32_t> key_rows;

  explicit InPlaceCache(uint32_t seed, int64_t head_dim = kHeadDims[0]) : width(kHeads * head_dim) {
    std::mt19937 rng(seed);
    q = random_floats(kRows * width, rng);
    k = random_floats(kRows * kCapacity * width, rng);
    v = random_floats(kRows * kCapacity * width, rng);
    std::uniform_int_distribution<int32_t> row(0, int32_t(kRows - 1));
    key_rows.assign(size_t(kRows * kCapacity), 0);
    for (int32_t& r : key_rows) r = row(rng);
    // Row b's key j, where key_rows says it is, copied into a row of its own.
    gathered_k.assign(size_t(kRows * kLive * width), 0.0f);
    gathered_v.assign(gathered_k.size(), 0.0f);
    for (int64_t b = 0; b < kRows; ++b)
      for (int64_t j = 0; j < kLive; ++j) {
        const int64_t from = (key_rows[size_t(b * kCapacity + j)] * kCapacity + j) * width;
        std::copy_n(k.begin() + from, width, gathered_k.begin() + (b * kLive + j) * width);
        std::copy_n(v.begin() + from, width, gathered_v.begin() + (b * kLive + j) * width);
      }
  }

  std::vector<float> in_place(AttentionMask mask, int64_t live = kLive) {
    mask.key_rows = on_cpu(key_rows, {kRows, kCapacity});
    mask.live_keys = live;
    std::vector<float> out(q.size());
    attention_forward(on_cpu(q, {kRows, 1, width}), on_cpu(k, {kRows, kCapacity, width}),
                      on_cpu(v, {kRows, kCapacity, width}), kHeads, 0.125f, mask,
                      on_cpu(out, {kRows, 1, width}), AttentionSaved{});
    return out;
  }

  std::vector<float> gathered(const AttentionMask& mask) {
    std::vector<float> out(q.size());
    attention_forward(on_cpu(q, {kRows, 1, width}), on_cpu(gathered_k, {kRows, kLive, width}),
                      on_cpu(gathered_v, {kRows, kLive, width}), kHeads, 0.125f, mask,
                      on_cpu(out, {kRows, 1, width}), AttentionSaved{});
    return out;
  }
};

bool reads_in_place(int64_t head_dim = kHeadDims[0]) {
  return attention_reads_in_place(Device::cpu(), head_dim);
}

void equals_the_gathered_cache(int64_t head_dim) {
  InPlaceCache c(3, head_dim);
  std::vector<int32_t> padding(size_t(c.kRows * c.kLive), 1);
  padding[3] = padding[12] = 0;
  std::mt19937 rng(4);
  std::vector<float> bias = random_floats(c.kHeads * c.kLive, rng);
  const AttentionMask masks[] = {
      {},
      {.key_padding = on_cpu(padding, {c.kRows, c.kLive})},
      {.causal = true, .past = c.kLive - 3},  // the last keys after the query
      {.position_bias = on_cpu(bias, {c.kHeads, 1, c.kLive})},
  };
  for (const AttentionMask& mask : masks) {
    const std::vector<float> ours = c.in_place(mask);
    EXPECT_EQ(ours, c.gathered(mask));
    EXPECT_NE(ours, InPlaceCache(5, head_dim).in_place(mask));  // the keys matter
  }
}

TEST(AttentionInPlace, EqualsTheGatheredCache) {
  if (!reads_in_place())
    GTEST_SKIP() << "the CPU's decoding kernel needs an AVX2 or AVX-512 build, so it cannot run on "
                    "this CPU (the copying cache, tested on every CPU, runs)";
  for (int64_t head_dim : kHeadDims) {
    SCOPED_TRACE(head_dim);
    ASSERT_TRUE(reads_in_place(head_dim));
    equals_the_gathered_cache(head_dim);
  }
}

TEST(AttentionInPlace, RefusesWhatItCannotRead) {
  InPlaceCache c(6);
  if (!reads_in_place()) {
    EXPECT_CONTAINS(error_of([&] { c.in_place({}); }), "needs the CPU's decoding kernel");
    return;
  }
  c.key_rows[17] = int32_t(c.kRows);  // a row outside the batch
  EXPECT_CONTAINS(error_of([&] { c.in_place({}); }),
                  "attention: key row 5 of batch row 1, position 6");
  c.key_rows[17] = 0;
  AttentionMask saved_for_backward{.key_rows = on_cpu(c.key_rows, {c.kRows, c.kCapacity}),
                                   .live_keys = c.kLive};
  std::vector<float> out(c.q.size()), lse(size_t(c.kRows * c.kHeads));
  EXPECT_CONTAINS(error_of([&] {
                    attention_forward(
                        on_cpu(c.q, {c.kRows, 1, c.width}),
                        on_cpu(c.k, {c.kRows, c.kCapacity, c.width}),
                        on_cpu(c.v, {c.kRows, c.kCapacity, c.width}), c.kHeads, 1.0f,
                        saved_for_backward, on_cpu(out, {c.kRows, 1, c.width}),
                        AttentionSaved::row_statistics(on_cpu(lse, {c.kRows, c.kHeads, 1})));
                  }),
                  "nothing saved and no dropout");
  EXPECT_CONTAINS(error_of([&] { c.in_place({}, c.kCapacity + 1); }), "with 12 live keys");
}

}  // namespace
}  // namespace precis
