// embedding (kernels/embedding.h): token embeddings (scaled), learned positions, and their
// backward, on every backend against loops in double. Both forwards are linear in the table,
// so the gradients are checked exactly against the sums they are; the CPU gives the same bits
// for any thread count. The CUDA twins' bf16/fp16 activations (EmbeddingKernel16) against the
// CPU's fp32 op on the same rounded values.
#include <random>
#include <vector>

#include "precis/kernels/embedding.h"

#include "kernel_test.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

// The batches of the odd-shape tests (the fp32 op's and the 16-bit twins'): 3 x 23 tokens over
// 13 ids with repeats and padding (tokens 3 and 9), positions from row 2 of 29, and tables 37,
// 129, 1 and 1031 wide (wider than a CUDA grid's one pass over the columns). 69 tokens are
// enough for the CUDA backward to split the ids into 4 classes, each with repeated ids.
struct OddShapeBatches {
  static constexpr int64_t B = 3, T = 23, V = 13, P = 29, first = 2, pad = 1;
  static constexpr float scale = 0.75f;

  struct Batch {
    int64_t d;  // the tables' width
    std::vector<int32_t> ids;
    std::vector<float> table, positions, G;  // G: the gradient of the output
  };

  // f(batch) for each width, the batches drawn in turn from `seed`, failures traced by the width.
  template <class F>
  static void for_each_width(uint32_t seed, F&& f) {
    std::mt19937 rng(seed);
    for (int64_t d : {int64_t(37), int64_t(129), int64_t(1), int64_t(1031)}) {
      SCOPED_TRACE(::testing::Message() << "width " << d);
      Batch batch{d, std::vector<int32_t>(size_t(B * T)), {}, {}, {}};
      for (int32_t& id : batch.ids) id = int32_t(rng() % V);
      batch.ids[3] = batch.ids[9] = int32_t(pad);
      batch.table = random_floats(V * d, rng);
      batch.positions = random_floats(P * d, rng);
      batch.G = random_floats(B * T * d, rng);
      f(batch);
    }
  }
};

class EmbeddingKernel : public KernelTest, protected OddShapeBatches {};

}  // namespace

TEST_P(EmbeddingKernel, BackwardScalesSkipsPaddingAndAddsRepeats) {
  std::mt19937 rng(4);
  const int64_t V = 6, d = 5, B = 2, T = 4, pad = 1;
  std::vector<int32_t> ids{0, 3, 1, 3, 5, 1, 3, 2};
  std::vector<float> G = random_floats(B * T * d, rng);
  Tensor idt = on_device(ids, {B, T}), Gt = on_device(G, {B, T, d});
  const float scale = 1.5f;
  Tensor dtable = filled({V, d}, 0.125f);
  embedding_backward(Gt, idt, scale, pad, dtable);
  // out = table[ids]·scale is linear in the table: the gradient is exact, check it directly.
  RefVec expected(size_t(V * d), 0.0);
  for (int64_t i = 0; i < B * T; ++i)
    if (ids[i] != pad)
      for (int64_t c = 0; c < d; ++c) expected[ids[i] * d + c] += G[i * d + c] * scale;
  std::vector<float> got = to_host(dtable);
  expect_near_reference(got, expected, "dtable (+=)", 0.125);
  for (int64_t c = 0; c < d; ++c) EXPECT_EQ(got[pad * d + c], 0.125f) << "pad row";

  // padding_idx < 0: every row gets its gradient.
  Tensor all = filled({V, d});
  embedding_backward(Gt, idt, 1.0f, -1, all);
  EXPECT_NE(to_host(all)[pad * d], 0.0f);

  Tensor bad = on_device(std::vector<int32_t>{0, 6}, {1, 2}), G2 = filled({1, 2, d});
  EXPECT_THROW(embedding_backward(G2, bad, 1.0f, -1, dtable), Error);
}

TEST_P(EmbeddingKernel, PositionsSumOverTheBatch) {
  std::mt19937 rng(5);
  const int64_t B = 3, T = 4, d = 5, P = 9, first = 2;
  std::vector<float> G = random_floats(B * T * d, rng);
  Tensor Gt = on_device(G, {B, T, d}), dpos = filled({P, d}, 1.0f);
  position_embeddings_backward(Gt, first, dpos);
  RefVec expected(size_t(P * d), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < d; ++c) expected[(first + t) * d + c] += G[(b * T + t) * d + c];
  expect_near_reference(to_host(dpos), expected, "dpositions (+=)", 1.0);
  EXPECT_THROW(position_embeddings_backward(Gt, 6, dpos), Error);
}

// Forward and backward of both embeddings on the odd-shape batches (OddShapeBatches).
TEST_P(EmbeddingKernel, OddShapesForwardAndBackward) {
  for_each_width(41, [&](Batch& batch) {
    auto& [d, ids, table, positions, G] = batch;
    Tensor idt = on_device(ids, {B, T}), out = filled({B, T, d}, 9.0f);
    embedding_forward(idt, on_device(table, {V, d}), scale, out);
    // scale·v is one rounding, then + position another, as float would do them.
    std::vector<float> tokens(size_t(B * T * d)), with_positions(tokens.size());
    for (int64_t i = 0; i < B * T; ++i)
      for (int64_t c = 0; c < d; ++c) {
        tokens[i * d + c] = float(double(table[ids[i] * d + c]) * scale);
        with_positions[i * d + c] =
            float(double(tokens[i * d + c]) + positions[(first + i % T) * d + c]);
      }
    EXPECT_EQ(to_host(out), tokens) << "embedding_forward";
    add_position_embeddings(out, on_device(positions, {P, d}), first);
    EXPECT_EQ(to_host(out), with_positions) << "add_position_embeddings";

    Tensor Gt = on_device(G, {B, T, d}), dtable = filled({V, d}, -0.5f), dpos = filled({P, d}, 0.25f);
    embedding_backward(Gt, idt, scale, pad, dtable);
    position_embeddings_backward(Gt, first, dpos);
    RefVec dtable_ref(size_t(V * d), 0.0), dpos_ref(size_t(P * d), 0.0);
    for (int64_t i = 0; i < B * T; ++i)
      for (int64_t c = 0; c < d; ++c) {
        if (ids[i] != pad) dtable_ref[ids[i] * d + c] += double(G[i * d + c]) * scale;
        dpos_ref[(first + i % T) * d + c] += G[i * d + c];
      }
    expect_near_reference(to_host(dtable), dtable_ref, "dtable (+=)", -0.5);
    expect_near_reference(to_host(dpos), dpos_ref, "dpositions (+=)", 0.25);
  });
}

INSTANTIATE_KERNEL_TEST(EmbeddingKernel);

// The 16-bit twins (bf16, fp16) against the CPU's fp32 op on the same rounded activations: the
// forwards write the fp32 table's rows (scaled, plus positions) rounded once; the backwards add
// 16-bit gradients into the fp32 tables (+=, repeated ids in token order, the padding row
// untouched). On the odd-shape batches, as the fp32 op.
class EmbeddingKernel16 : public HalfKernelTest, protected OddShapeBatches {};

TEST_P(EmbeddingKernel16, OddShapesForwardAndBackward) {
  for_each_width(41, [&](Batch& batch) {
    auto& [d, ids, table, positions, G] = batch;
    Tensor idt = on_device(ids, {B, T}), out = filled_16({B, T, d}, 9.0f);

    std::vector<float> tokens(size_t(B * T * d));
    embedding_forward(on_cpu(ids, {B, T}), on_cpu(table, {V, d}), scale, on_cpu(tokens, {B, T, d}));
    embedding_forward(idt, on_device(table, {V, d}), scale, out);
    expect_rounded_from(to_host(out), tokens, dtype(), "embedding_forward");

    // x is the 16-bit tokens just written: the reference adds the positions to those values.
    std::vector<float> with_positions = to_host(out);
    add_position_embeddings(on_cpu(with_positions, {B, T, d}), on_cpu(positions, {P, d}), first);
    add_position_embeddings(out, on_device(positions, {P, d}), first);
    expect_rounded_from(to_host(out), with_positions, dtype(), "add_position_embeddings");

    Tensor Gt = on_device_16(G, {B, T, d});
    for (int64_t padding_idx : {pad, int64_t(-1)}) {
      std::vector<float> dtable_ref(size_t(V * d), -0.5f);
      embedding_backward(on_cpu(G, {B, T, d}), on_cpu(ids, {B, T}), scale, padding_idx,
                         on_cpu(dtable_ref, {V, d}));
      Tensor dtable = filled({V, d}, -0.5f);
      embedding_backward(Gt, idt, scale, padding_idx, dtable);
      const std::vector<float> got = to_host(dtable);
      expect_near_reference(got, to_double(dtable_ref),
                            "dtable (+=), padding_idx " + std::to_string(padding_idx));
      if (padding_idx >= 0) {
        for (int64_t c = 0; c < d; ++c) ASSERT_EQ(got[pad * d + c], -0.5f) << "pad row";
      }
    }

    std::vector<float> dpos_ref(size_t(P * d), 0.25f);
    position_embeddings_backward(on_cpu(G, {B, T, d}), first, on_cpu(dpos_ref, {P, d}));
    Tensor dpos = filled({P, d}, 0.25f);
    position_embeddings_backward(Gt, first, dpos);
    expect_near_reference(to_host(dpos), to_double(dpos_ref), "dpositions (+=)");
  });
}

// The tables and their gradients are F32 (master weights), the activations F32, BF16 or F16:
// anything else is refused by the op's check, naming the tensors.
TEST_P(EmbeddingKernel16, RejectsSixteenBitTables) {
  const int64_t V = 4, d = 3, P = 5;
  Tensor ids = on_device(std::vector<int32_t>{0, 3}, {1, 2}), x = filled_16({1, 2, d});
  const std::string table = dtype_name(dtype()) + "[4, 3] on cuda:0";
  EXPECT_CONTAINS(error_of([&] { embedding_forward(ids, filled_16({V, d}), 1.0f, x); }),
                  "embedding: table " + table);
  Tensor int_out = on_device(std::vector<int32_t>(size_t(2 * d)), {1, 2, d});
  EXPECT_CONTAINS(error_of([&] { embedding_forward(ids, filled({V, d}), 1.0f, int_out); }),
                  "out I32[1, 2, 3] on cuda:0 (table is F32, out F32, BF16 or F16)");
  EXPECT_CONTAINS(error_of([&] { add_position_embeddings(x, filled_16({P, d}), 0); }),
                  "(table is F32, x F32, BF16 or F16)");
  EXPECT_CONTAINS(error_of([&] { embedding_backward(x, ids, 1.0f, -1, filled_16({V, d})); }),
                  "dtable " + table + ", dout " + dtype_name(dtype()) + "[1, 2, 3] on cuda:0 (dtable is F32, dout F32, BF16 or F16)");
  EXPECT_CONTAINS(error_of([&] { position_embeddings_backward(x, 0, filled_16({P, d})); }),
                  "(table is F32, dx F32, BF16 or F16)");
}

INSTANTIATE_HALF_KERNEL_TEST(EmbeddingKernel16);

// Repeated ids and positions sum in token order whatever the thread count.
TEST(EmbeddingCpu, SameBitsForAnyThreadCount) {
  std::mt19937 rng(33);
  const int64_t n = 1517, d = 300, V = 40;
  std::vector<float> G = random_floats(n * d, rng);
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (auto& id : ids) id = int32_t(rng() % V);
  auto run = [&] {
    std::vector<float> dtable(size_t(V * d)), dpos(size_t((n + 2) * d));
    Tensor Gt = on_cpu(G, {1, n, d});
    embedding_backward(Gt, on_cpu(ids, {1, n}), 2.0f, 1, on_cpu(dtable, {V, d}));
    position_embeddings_backward(Gt, 2, on_cpu(dpos, {n + 2, d}));
    return std::vector<std::vector<float>>{dtable, dpos};
  };
  expect_same_for_thread_counts(run, {2, 3, 7});
}
