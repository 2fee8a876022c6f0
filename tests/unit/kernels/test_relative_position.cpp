// relative_position (kernels/relative_position.h), T5's relative position bias, on every
// backend: the bucket of a distance against values torch gave (transformers 4.44,
// T5Attention._relative_position_bucket), the bias against a loop over (head, query, key), and
// its backward, a sum over the batch into the table (+=), against the same loop in double and,
// bit for bit, against the CPU.
#include <random>
#include <vector>

#include "precis/kernels/relative_position.h"

#include "kernel_test.h"

using namespace precis;
using namespace precis::testing;

namespace {

class RelativePositionKernel : public KernelTest {
 protected:
  // Forward and backward for H heads, Tq queries from absolute position first_query, Tk keys.
  void check(const RelativePositionBuckets& buckets, int64_t batch, int64_t H, int64_t Tq,
             int64_t Tk, int64_t first_query, uint32_t seed) {
    std::mt19937 rng(seed);
    const int64_t nb = buckets.num_buckets;
    std::vector<float> table = random_floats(nb * H, rng), d_scores = random_floats(batch * H * Tq * Tk, rng);
    Tensor bias = filled({H, Tq, Tk}, 9.0f);
    relative_position_bias_forward(on_device(table, {nb, H}), buckets, first_query, bias);
    std::vector<float> expected(size_t(H * Tq * Tk));
    RefVec dtable_ref(size_t(nb * H), 0.0);
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < Tq; ++i)
        for (int64_t j = 0; j < Tk; ++j) {
          const int64_t bucket = relative_position_bucket(j - (first_query + i), buckets);
          expected[(h * Tq + i) * Tk + j] = table[bucket * H + h];
          for (int64_t b = 0; b < batch; ++b)
            dtable_ref[bucket * H + h] += d_scores[((b * H + h) * Tq + i) * Tk + j];
        }
    EXPECT_EQ(to_host(bias), expected) << "forward: table entries, copied";

    Tensor dtable = filled({nb, H}, 0.5f);
    relative_position_bias_backward(on_device(d_scores, {batch, H, Tq, Tk}), buckets, first_query,
                                    dtable);
    expect_near_reference(to_host(dtable), dtable_ref, "dtable (+=)", 0.5);
    // Every backend adds in one order (the diagonals' sums, then each bucket's): the CPU's bits.
    std::vector<float> cpu_dtable(size_t(nb * H), 0.5f);
    relative_position_bias_backward(on_cpu(d_scores, {batch, H, Tq, Tk}), buckets, first_query,
                                    on_cpu(cpu_dtable, {nb, H}));
    EXPECT_EQ(to_host(dtable), cpu_dtable) << "dtable: the CPU's bits";
  }
};

struct BucketCase {
  int64_t relative_position, bidirectional_bucket, causal_bucket;
};

// torch's buckets for 32 buckets and max_distance 128 (T5's defaults): exact below 8 (16
// causal), logarithmic up to 128, the last bucket beyond; future keys in the causal case: 0.
constexpr BucketCase kTorchBuckets[] = {
    {0, 0, 0},       {-1, 1, 1},      {1, 17, 0},      {-7, 7, 7},      {7, 23, 0},
    {-8, 8, 8},      {8, 24, 0},      {-15, 9, 15},    {-16, 10, 16},   {-17, 10, 16},
    {16, 26, 0},     {-31, 11, 21},   {-32, 12, 21},   {-33, 12, 21},   {-63, 13, 26},
    {-64, 14, 26},   {-65, 14, 26},   {-100, 15, 30},  {-127, 15, 31},  {-128, 15, 31},
    {-129, 15, 31},  {-500, 15, 31},  {500, 31, 0},    {3, 19, 0},      {37, 28, 0},
    {-37, 12, 22}};

}  // namespace

TEST(RelativePositionBucket, MatchesTorch) {
  const RelativePositionBuckets encoder{true, 32, 128}, decoder{false, 32, 128};
  for (const BucketCase& c : kTorchBuckets) {
    EXPECT_EQ(relative_position_bucket(c.relative_position, encoder), c.bidirectional_bucket)
        << "bidirectional, distance " << c.relative_position;
    EXPECT_EQ(relative_position_bucket(c.relative_position, decoder), c.causal_bucket)
        << "causal, distance " << c.relative_position;
  }
}

TEST_P(RelativePositionKernel, EncoderBias) { check({true, 32, 128}, 2, 3, 5, 37, 0, 50); }

// Far distances reach the last buckets (37 x 129 positions, distance up to 128).
TEST_P(RelativePositionKernel, EncoderBiasOverLongSequences) {
  check({true, 32, 128}, 3, 2, 37, 129, 0, 51);
}

// Incremental decoding: query rows start at the cache length; future keys share bucket 0.
TEST_P(RelativePositionKernel, DecoderBiasFromACachePosition) {
  check({false, 32, 128}, 2, 3, 1, 37, 36, 52);
  check({false, 32, 128}, 1, 5, 5, 129, 124, 53);
  check({false, 16, 20}, 2, 7, 37, 37, 0, 54);  // a smaller table, another max_distance
}

TEST_P(RelativePositionKernel, RejectsATableOfTheWrongShape) {
  Tensor table = filled({31, 3}), bias = filled({3, 2, 2}), d_scores = filled({1, 3, 2, 2});
  EXPECT_THROW(relative_position_bias_forward(table, {true, 32, 128}, 0, bias), Error);
  Tensor table4 = filled({32, 4});
  EXPECT_THROW(relative_position_bias_forward(table4, {true, 32, 128}, 0, bias), Error);
  EXPECT_THROW(relative_position_bias_backward(d_scores, {true, 32, 128}, 0, table4), Error);
}

// More (bucket, head) entries than one pass of a CUDA grid (32 x 40), and a long cache.
TEST_P(RelativePositionKernel, ManyHeads) {
  check({true, 32, 128}, 2, 40, 9, 11, 0, 55);
  check({false, 32, 128}, 2, 40, 3, 200, 197, 56);
}

INSTANTIATE_KERNEL_TEST(RelativePositionKernel);
