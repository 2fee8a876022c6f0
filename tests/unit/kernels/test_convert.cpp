// convert (kernels/convert.h) on every backend: fp32 to bf16 and fp16 rounds to nearest even as
// torch's .to() does, keeps infinities and NaN, overflows fp16 to infinity, and widening back
// is exact. The expected bits are worked out from the formats (bf16: fp32's top 16 bits;
// fp16: 1 sign, 5 exponent, 10 mantissa bits).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "precis/core/dtype.h"
#include "precis/kernels/convert.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

class ConvertKernel : public KernelTest {
 protected:
  // src (F32, on the backend) converted to `dtype`, the 16-bit words back on the host.
  std::vector<uint16_t> narrow(const std::vector<float>& values, DType dtype) {
    const Shape shape{int64_t(values.size())};
    Tensor src = on_device(values, shape);
    Arena arena(values.size() * 2 + Arena::kAlignment, device());
    Tensor dst = arena.alloc(shape, dtype);
    convert(src, dst);
    std::vector<uint16_t> bits(values.size());
    copy(dst, Tensor{bits.data(), shape, dtype, Device::cpu()});
    // And back to fp32, exactly: the widened values are the 16-bit values.
    Tensor wide = filled(shape, -7.0f);
    convert(dst, wide);
    std::vector<float> back = to_host(wide);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint32_t word = dtype == DType::BF16 ? uint32_t(bits[i]) << 16 : 0;
      if (dtype == DType::BF16 && !std::isnan(back[i])) {
        float expected;
        std::memcpy(&expected, &word, 4);
        EXPECT_EQ(back[i], expected) << i;
      }
    }
    return bits;
  }
};

}  // namespace

TEST_P(ConvertKernel, Bf16RoundsToNearestEven) {
  const float inf = std::numeric_limits<float>::infinity();
  // 1 + 2^-8 is halfway between bf16's 1 and 1 + 2^-7: even (1) wins; 1 + 3·2^-8 is halfway
  // between 1 + 2^-7 and 1 + 2^-6: even (1 + 2^-6) wins; just above halfway rounds up.
  std::vector<float> x = {1.0f, 1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-8f + 0x1p-20f,
                          -2.5f, 0.0f, -0.0f, inf, -inf, 3.0e38f};
  // 3e38 = 1.7635 · 2^127, to 7 mantissa bits: 0x7F62.
  EXPECT_EQ(narrow(x, DType::BF16),
            (std::vector<uint16_t>{0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xC020, 0x0000, 0x8000, 0x7F80,
                                   0xFF80, 0x7F62}));
  std::vector<uint16_t> nan = narrow({std::numeric_limits<float>::quiet_NaN()}, DType::BF16);
  EXPECT_EQ(nan[0] & 0x7F80, 0x7F80);
  EXPECT_NE(nan[0] & 0x007F, 0) << "a NaN stays a NaN";
}

TEST_P(ConvertKernel, Fp16RoundsOverflowsAndKeepsSubnormals) {
  // 1 + 2^-11 is halfway between fp16's 1 and 1 + 2^-10: even (1) wins. 65520 is halfway
  // between the largest fp16, 65504, and 2^16: it overflows to infinity, as torch gives.
  std::vector<float> x = {1.0f, 1.0f + 0x1p-11f, 1.0f + 0x1p-10f, 65504.0f, 65520.0f,
                          -0x1p-24f, 0x1p-14f, 1e-9f};
  // -2^-24 is (minus) the smallest subnormal, 0x8001; 2^-14 the smallest normal, 0x0400; 1e-9
  // is below half the smallest subnormal: 0.
  std::vector<uint16_t> h = narrow(x, DType::F16);
  EXPECT_EQ(
      h, (std::vector<uint16_t>{0x3C00, 0x3C00, 0x3C01, 0x7BFF, 0x7C00, 0x8001, 0x0400, 0x0000}));
  Tensor wide = filled({8});
  Arena arena(Arena::kAlignment, device());
  Tensor half = arena.alloc({8}, DType::F16);
  copy(Tensor{h.data(), Shape{8}, DType::F16, Device::cpu()}, half);
  convert(half, wide);
  std::vector<float> back = to_host(wide);
  EXPECT_EQ(back[3], 65504.0f);
  EXPECT_EQ(back[5], -0x1p-24f);
  EXPECT_TRUE(std::isinf(back[4]));
}

TEST_P(ConvertKernel, OnlyBetweenFp32AndSixteenBits) {
  Tensor a = filled({4});
  Arena arena(2 * Arena::kAlignment, device());
  Tensor ints = arena.alloc({4}, DType::I32), short_half = arena.alloc({3}, DType::BF16);
  EXPECT_THROW(convert(a, ints), Error);
  EXPECT_THROW(convert(a, short_half), Error);
}

// Every 16-bit word widens to core/dtype.h's float, and random fp32 words (normals, subnormals,
// infinities, NaNs) narrow to its words: the op's conversions are the load-time ones, bit for
// bit, on every backend. 65536 words: the grid-stride loops wrap.
TEST_P(ConvertKernel, SameBitsAsTheLoadTimeConversions) {
  const int64_t words = 65536;
  std::vector<uint16_t> every(static_cast<size_t>(words));
  for (int64_t i = 0; i < words; ++i) every[size_t(i)] = uint16_t(i);
  auto float_bits = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  };
  Arena arena(size_t(words) * 2 + Arena::kAlignment, device());
  for (DType dtype : {DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor narrow_words = arena.alloc({words}, dtype), wide = filled({words});
    copy(Tensor{every.data(), Shape{words}, dtype, Device::cpu()}, narrow_words);
    convert(narrow_words, wide);
    std::vector<float> back = to_host(wide);
    for (int64_t i = 0; i < words; ++i) {
      const float expected = dtype == DType::BF16 ? bf16_to_float(every[size_t(i)])
                                                  : f16_to_float(every[size_t(i)]);
      ASSERT_EQ(float_bits(back[size_t(i)]), float_bits(expected)) << "word " << i;
    }
    arena.reset();
  }
  std::mt19937 rng(17);
  std::vector<float> values(static_cast<size_t>(words));
  for (float& v : values) {
    uint32_t u = uint32_t(rng());
    // A quarter across fp16's range (2^-27..2^16: below its subnormals to beyond its
    // overflow), an eighth on an fp16 tie there, an eighth on a bf16 tie.
    const uint32_t fp16_range = uint32_t(100 + (u >> 8) % 44) << 23;
    if (u % 4 == 0) u = (u & 0x807FFFFFu) | fp16_range;
    if (u % 8 == 2) u = (u & 0x807FE000u) | fp16_range | 0x1000u;
    if (u % 8 == 1) u = (u & 0xFFFF0000u) | 0x8000u;
    std::memcpy(&v, &u, 4);
  }
  for (DType dtype : {DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtype_name(dtype));
    std::vector<uint16_t> got = narrow(values, dtype);
    for (int64_t i = 0; i < words; ++i) {
      const float v = values[size_t(i)];
      ASSERT_EQ(got[size_t(i)], dtype == DType::BF16 ? float_to_bf16(v) : float_to_f16(v))
          << "value " << v << " (word " << float_bits(v) << ")";
    }
  }
}

INSTANTIATE_KERNEL_TEST(ConvertKernel);
