#include <gtest/gtest.h>

#include <cmath>

#include "precis/core/arena.h"

using namespace precis;

TEST(Arena, AllocatesAlignedViewsAndMeasures) {
  Arena measure = Arena::measuring();
  measure.alloc({3, 5});
  measure.alloc({7}, DType::I32);
  Arena arena(measure.used());
  Tensor a = arena.alloc({3, 5});
  Tensor b = arena.alloc({7}, DType::I32);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.ptr) % Arena::kAlignment, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.ptr) % Arena::kAlignment, 0u);
  EXPECT_EQ(arena.used(), measure.used());
  EXPECT_THROW(arena.alloc({1}), Error);
}

TEST(Tensor, ViewAndSliceCheckShapes) {
  Arena arena(1024);
  Tensor t = arena.alloc({4, 6});
  EXPECT_EQ(t.view({2, 12}).shape, Shape({2, 12}));
  EXPECT_THROW(t.view({5, 5}), Error);
  Tensor rows = t.slice(1, 3);
  EXPECT_EQ(rows.shape, Shape({2, 6}));
  EXPECT_EQ(rows.data<float>(), t.data<float>() + 6);
  EXPECT_THROW(t.slice(3, 5), Error);
}

TEST(DType, HalfPrecisionConversionsRoundTrip) {
  for (float v : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.333251953125f}) {
    EXPECT_EQ(f16_to_float(float_to_f16(v)), v) << v;
  }
  EXPECT_TRUE(std::isinf(f16_to_float(float_to_f16(1e6f))));
  for (float v : {0.0f, 1.0f, -3.140625f, std::ldexp(1.0f, 100)}) EXPECT_EQ(bf16_to_float(float_to_bf16(v)), v) << v;
  // Round to nearest even on the dropped 16 bits.
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.00390625f)), 1.0f);
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.01171875f)), 1.015625f);
}
