// token_ids (kernels/token_ids.h) on every backend: the first id outside its table, by value,
// other than the labels' ignore index, against a plain scan.
#include <random>
#include <vector>

#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/token_ids.h"

#include "kernel_test.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

class TokenIdsKernel : public KernelTest {};

}  // namespace

TEST_P(TokenIdsKernel, TheFirstInvalidIdIsReportedByValue) {
  Tensor t = on_device(std::vector<int32_t>{3, -100, 5, 9, -1}, {5});
  InvalidId any = first_invalid_id(t, 9);
  EXPECT_EQ(any.index, 1);
  EXPECT_EQ(any.id, -100);
  InvalidId labels = first_invalid_id(t, 9, kIgnoreIndex);
  EXPECT_EQ(labels.index, 3);
  EXPECT_EQ(labels.id, 9);
  EXPECT_EQ(first_invalid_id(t.slice(0, 3), 9, kIgnoreIndex).index, -1);
  Tensor table = filled({9, 2}), out = filled({5, 2});
  std::string message = error_of([&] { embedding_forward(t, table, 1.0f, out); });
  EXPECT_CONTAINS(message, "token id -100 is outside the embedding table of 9 rows");
}

// Valid ids in odd shapes with one bad id placed at every position in turn (and none).
TEST_P(TokenIdsKernel, OddShapesFindTheFirstBadIdAnywhere) {
  std::mt19937 rng(47);
  const int64_t limit = 129;
  for (OddShape s : odd_shapes()) {
    const int64_t n = s.rows * s.cols;
    std::vector<int32_t> ids(static_cast<size_t>(n));
    for (int32_t& id : ids) id = int32_t(rng() % limit);
    ids[size_t(n / 2)] = kIgnoreIndex;
    EXPECT_EQ(first_invalid_id(on_device(ids, {s.rows, s.cols}), limit, kIgnoreIndex).index, -1);
    for (int64_t at = 0; at < n; at += (at < 40 ? 1 : 13)) {
      std::vector<int32_t> bad = ids;
      bad[size_t(at)] = at % 2 ? int32_t(limit) : -1;
      bad[size_t(n - 1)] = int32_t(limit + 5);  // a later bad id is not the first
      InvalidId found = first_invalid_id(on_device(bad, {s.rows, s.cols}), limit, kIgnoreIndex);
      EXPECT_EQ(found.index, at) << s.rows << "x" << s.cols;
      EXPECT_EQ(found.id, bad[size_t(at)]);
    }
  }
}

// More ids than one pass of the grid covers (a CUDA thread then scans several): bad ids in
// different blocks and rounds, the first of them in a later block than another.
TEST_P(TokenIdsKernel, LongSequencesFindTheFirstBadIdAcrossRounds) {
  std::mt19937 rng(48);
  const int64_t n = 3001, limit = 50;
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (int32_t& id : ids) id = int32_t(rng() % limit);
  EXPECT_EQ(first_invalid_id(on_device(ids, {n}), limit).index, -1);
  ids[2900] = -7;
  EXPECT_EQ(first_invalid_id(on_device(ids, {n}), limit).index, 2900);
  ids[2100] = 50;
  ids[1500] = 51;
  InvalidId found = first_invalid_id(on_device(ids, {n}), limit);
  EXPECT_EQ(found.index, 1500);
  EXPECT_EQ(found.id, 51);
}

INSTANTIATE_KERNEL_TEST(TokenIdsKernel);
