// copy (kernels/copy.h) on every backend: whole tensors to and from the host, and the row moves
// of the decoder's key/value cache (gather_rows for beam reordering, append_rows for a step),
// against loops over the same indices.
#include <random>
#include <vector>

#include "precis/kernels/copy.h"

#include "kernel_test.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

class CopyKernel : public KernelTest {};

}  // namespace

TEST_P(CopyKernel, GatherRowsReordersBeamsIntoALongerLayout) {
  // src (3 rows, 2 positions, width 2); dst (3 rows, 3 positions): the third position stays.
  std::vector<float> s(12);
  for (size_t i = 0; i < s.size(); ++i) s[i] = float(i);
  Tensor src = on_device(s, {3, 2, 2}), dst = filled({3, 3, 2}, -1.0f);
  std::vector<int32_t> rows{2, 0, 0};
  gather_rows(src, rows, dst);
  EXPECT_EQ(to_host(dst),
            (std::vector<float>{8, 9, 10, 11, -1, -1, 0, 1, 2, 3, -1, -1, 0, 1, 2, 3, -1, -1}));
  gather_rows(src, {}, dst);  // identity
  EXPECT_EQ(to_host(dst)[6], 4.0f);
  std::vector<int32_t> bad{0, 3, 1};
  EXPECT_CONTAINS(error_of([&] { gather_rows(src, bad, dst); }), "source row 3");
}

TEST_P(CopyKernel, AppendRowsWritesOnePositionOfEveryRow) {
  Tensor cache = filled({2, 3, 2}), values = on_device(std::vector<float>{1, 2, 3, 4}, {2, 2});
  append_rows(values, 1, cache);
  EXPECT_EQ(to_host(cache), (std::vector<float>{0, 0, 1, 2, 0, 0, 0, 0, 3, 4, 0, 0}));
  EXPECT_THROW(append_rows(values, 3, cache), Error);
}

// A round trip through the backend and a copy on it keep every bit, F32 and I32.
TEST_P(CopyKernel, OddShapesKeepEveryBit) {
  std::mt19937 rng(45);
  for (OddShape s : odd_shapes()) {
    const Shape shape{s.rows, s.cols};
    std::vector<float> values = random_floats(shape.numel(), rng);
    Tensor a = on_device(values, shape), b = filled(shape, 3.0f);
    copy(a, b);
    EXPECT_EQ(to_host(b), values) << s.rows << "x" << s.cols;
    std::vector<int32_t> ids(size_t(shape.numel()));
    for (int32_t& id : ids) id = int32_t(rng());
    Tensor ia = on_device(ids, shape), ib = on_device(std::vector<int32_t>(ids.size()), shape);
    copy(ia, ib);
    std::vector<int32_t> back(ids.size());
    copy(ib, Tensor{back.data(), shape, DType::I32, Device::cpu()});
    EXPECT_EQ(back, ids) << s.rows << "x" << s.cols;
  }
  Tensor f = filled({3}), i = on_device(std::vector<int32_t>(3), {3}), four = filled({4});
  EXPECT_THROW(copy(f, i), Error) << "dtypes differ";
  EXPECT_THROW(copy(f, four), Error) << "sizes differ";
}

// Beam reordering and a step's append on a cache 37 wide: 5 beams from 3, 7 of 11 positions.
TEST_P(CopyKernel, OddShapesGatherAndAppendAsTheLoops) {
  std::mt19937 rng(46);
  const int64_t Rs = 3, Rd = 5, Ts = 7, Td = 11, W = 37;
  std::vector<float> src = random_floats(Rs * Ts * W, rng), dst0 = random_floats(Rd * Td * W, rng);
  std::vector<int32_t> rows{2, 2, 0, 1, 2};
  Tensor dst = on_device(dst0, {Rd, Td, W});
  gather_rows(on_device(src, {Rs, Ts, W}), rows, dst);
  std::vector<float> expected = dst0;
  for (int64_t r = 0; r < Rd; ++r)
    for (int64_t t = 0; t < Ts; ++t)
      for (int64_t c = 0; c < W; ++c)
        expected[(r * Td + t) * W + c] = src[(rows[r] * Ts + t) * W + c];
  EXPECT_EQ(to_host(dst), expected) << "gather_rows";

  std::vector<float> step = random_floats(Rd * W, rng);
  append_rows(on_device(step, {Rd, W}), Ts, dst);
  for (int64_t r = 0; r < Rd; ++r)
    for (int64_t c = 0; c < W; ++c) expected[(r * Td + Ts) * W + c] = step[r * W + c];
  EXPECT_EQ(to_host(dst), expected) << "append_rows";
}

INSTANTIATE_KERNEL_TEST(CopyKernel);
