// Counter-based RNG (Philox4x32-10, core/rng.h): known-answer vectors from the Random123
// distribution, ranges against single draws and the documented layout, and distinct dropout
// streams for nearby sites. (Dropout itself: kernels/test_dropout.cpp.)
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "precis/core/rng.h"

using namespace precis;

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
