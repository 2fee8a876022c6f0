// Counter-based RNG (Philox4x32-10) and dropout: known-answer vectors from the Random123
// distribution, masks that are a pure function of (seed, stream, index), the keep rate,
// forward/backward agreement, and independence from the thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <set>
#include <vector>

#include "precis/core/rng.h"
#include "precis/kernels/dropout.h"

#include "test_support.h"

using namespace precis;

namespace {

using precis::testing::Buffer;

Buffer ramp(int64_t n) {
  Buffer b({n});
  for (int64_t i = 0; i < n; ++i) b.data[i] = 0.001f * float(i % 1000) + 1.0f;
  return b;
}

}  // namespace

TEST(Philox, KnownAnswerVectors) {
  // kat_vectors of Random123 1.09, philox4x32_10.
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (Philox4x32{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                          {0xffffffffu, 0xffffffffu}),
            (Philox4x32{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                          {0xa4093822u, 0x299f31d0u}),
            (Philox4x32{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, RangesAgreeWithSingleDrawsAndTheDocumentedLayout) {
  const uint64_t seed = 0x0123456789abcdefull, stream = 0xfedcba9876543210ull;
  std::vector<uint32_t> bits(23);
  random_bits(seed, stream, 5, 23, bits.data());  // starts mid-block, ends mid-block
  for (int i = 0; i < 23; ++i) EXPECT_EQ(bits[i], random_bits(seed, stream, 5 + i)) << i;
  // index 4·b + w is word w of philox(counter = (b, stream), key = seed).
  uint64_t block = (1ull << 33) + 7;
  Philox4x32 r = philox4x32_10({uint32_t(block), uint32_t(block >> 32), uint32_t(stream),
                                uint32_t(stream >> 32)},
                               {uint32_t(seed), uint32_t(seed >> 32)});
  for (int w = 0; w < 4; ++w) EXPECT_EQ(random_bits(seed, stream, block * 4 + w), r[w]);
}

TEST(DropoutStream, DistinctForNearbySites) {
  std::set<uint64_t> seen;
  for (uint64_t step = 0; step < 8; ++step)
    for (uint32_t mb = 0; mb < 4; ++mb)
      for (uint32_t layer = 0; layer < 8; ++layer)
        for (uint32_t site = 0; site < 6; ++site)
          seen.insert(dropout_stream(step, mb, layer, site));
  EXPECT_EQ(seen.size(), 8u * 4 * 8 * 6);
  EXPECT_EQ(dropout_stream(3, 1, 2, 0), dropout_stream(3, 1, 2, 0));
}

TEST(Dropout, SameSpecSameMaskOtherStreamsOrSeedsDiffer) {
  const int64_t n = 10000;
  Buffer x = ramp(n), a({n}), b({n}), c({n}), d({n});
  DropoutSpec spec{0.1f, 42, dropout_stream(0, 0, 0, 0)};
  dropout_forward(x.t(), spec, a.t());
  dropout_forward(x.t(), spec, b.t());
  EXPECT_EQ(a.data, b.data);
  dropout_forward(x.t(), {0.1f, 42, dropout_stream(0, 0, 0, 1)}, c.t());
  dropout_forward(x.t(), {0.1f, 43, spec.stream}, d.t());
  EXPECT_NE(a.data, c.data);
  EXPECT_NE(a.data, d.data);
  // The decision is the documented pure function of (seed, stream, index).
  const float scale = 1.0f / float(1.0 - double(0.1f));
  for (int64_t i = 0; i < n; ++i) {
    bool keep = random_bits(42, spec.stream, uint64_t(i)) >= dropout_threshold(0.1f);
    EXPECT_EQ(a.data[i], keep ? x.data[i] * scale : 0.0f) << i;
  }
}

TEST(Dropout, KeepRateIsOneMinusP) {
  const int64_t n = 1 << 20;
  Buffer x({n}, 1.0f), y({n});
  for (float p : {0.1f, 0.5f, 0.9f}) {
    dropout_forward(x.t(), {p, 7, 11}, y.t());
    int64_t kept = 0;
    for (float v : y.data) kept += v != 0.0f;
    double rate = double(kept) / double(n);
    double sigma = std::sqrt(p * (1 - p) / double(n));
    EXPECT_NEAR(rate, 1.0 - p, 5 * sigma) << "p = " << p;
    // Kept values are scaled by 1/(1-p) computed in float, as torch does.
    for (float v : y.data)
      if (v != 0.0f) {
        EXPECT_EQ(v, 1.0f / float(1.0 - double(p)));
        break;
      }
  }
}

TEST(Dropout, IdentityAtZeroAndZerosAtOne) {
  Buffer x = ramp(100), y({100}), z({100}, 5.0f);
  dropout_forward(x.t(), {}, y.t());
  EXPECT_EQ(y.data, x.data);
  dropout_forward(x.t(), {1.0f, 1, 1}, z.t());
  EXPECT_EQ(z.data, std::vector<float>(100, 0.0f));
  EXPECT_THROW(dropout_forward(x.t(), {1.5f, 1, 1}, y.t()), Error);
  Buffer wrong({99});
  EXPECT_THROW(dropout_forward(x.t(), {0.5f, 1, 1}, wrong.t()), Error);
}

TEST(Dropout, BackwardUsesTheForwardMaskAndMayAlias) {
  const int64_t n = 5000;
  DropoutSpec spec{0.3f, 5, dropout_stream(9, 2, 4, 1)};
  Buffer x = ramp(n), y({n}), dy({n}, 2.0f), dx({n});
  dropout_forward(x.t(), spec, y.t());
  dropout_backward(dy.t(), spec, dx.t());
  const float scale = 1.0f / float(1.0 - double(0.3f));
  for (int64_t i = 0; i < n; ++i) {
    // y = x·keep·scale is linear: dL/dx = dy·keep·scale, zero exactly where y is.
    EXPECT_EQ(dx.data[i] == 0.0f, y.data[i] == 0.0f) << i;
    if (y.data[i] != 0.0f) {
      EXPECT_EQ(dx.data[i], 2.0f * scale);
    }
  }
  Buffer inplace = dy;
  dropout_backward(inplace.t(), spec, inplace.t());
  EXPECT_EQ(inplace.data, dx.data);
  Buffer x_inplace = x;
  dropout_forward(x_inplace.t(), spec, x_inplace.t());
  EXPECT_EQ(x_inplace.data, y.data);
}

TEST(Dropout, SameMaskForAnyThreadCount) {
  const int64_t n = 100003;  // not a multiple of the parallel chunk
  Buffer x = ramp(n);
  auto run = [&](int threads) {
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    Buffer y({n});
    dropout_forward(x.t(), {0.25f, 77, 88}, y.t());
    omp_set_num_threads(saved);
    return y.data;
  };
  auto one = run(1);
  for (int t : {2, 3, 8}) EXPECT_EQ(run(t), one) << t << " threads";
}
