// cross_entropy (kernels/cross_entropy.h): the per-position loss (ignore_index, label
// smoothing as HF's LabelSmoother) against a double reference, and its gradient against
// central differences of that reference, on every backend; dlogits may alias logits. The CUDA
// twins' bf16/fp16 logits (CrossEntropyKernel16) against the CPU's fp32 op on the same rounded
// values.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "precis/kernels/cross_entropy.h"

#include "kernel_test.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

// Σ over counted positions of (1-ε)·(log Z - logit[y]) + ε·(log Z - mean(logits)), in double.
double cross_entropy_reference(const RefVec& logits, const std::vector<int32_t>& labels,
                               int64_t vocab, double eps) {
  double total = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == kIgnoreIndex) continue;
    const double* row = logits.data() + i * vocab;
    double max = *std::max_element(row, row + vocab), z = 0, mean = 0;
    for (int64_t j = 0; j < vocab; ++j) {
      z += std::exp(row[j] - max);
      mean += row[j] / vocab;
    }
    double log_z = std::log(z) + max;
    total += (1 - eps) * (log_z - row[labels[i]]) + eps * (log_z - mean);
  }
  return total;
}

class CrossEntropyKernel : public KernelTest {
 protected:
  // `offset` moves every logit (the loss and gradient do not change with it).
  void check(const std::vector<int32_t>& labels, int64_t V, float eps, uint32_t seed,
             float offset = 0.0f) {
    std::mt19937 rng(seed);
    const int64_t N = int64_t(labels.size());
    int64_t counted = 0;
    for (int32_t l : labels) counted += l != kIgnoreIndex;
    std::vector<float> logits = random_floats(N * V, rng, -3.0f + offset, 3.0f + offset);
    const float loss_scale = 1.0f / float(counted);
    Tensor logits_t = on_device(logits, {N, V}), labels_t = on_device(labels, {N});
    Tensor dlogits = filled({N, V}, 4.0f);
    cross_entropy_backward(logits_t, labels_t, eps, loss_scale, dlogits);
    RefVec expected = finite_difference_gradient(
        [&](const RefVec& l) { return loss_scale * cross_entropy_reference(l, labels, V, eps); },
        to_double(logits));
    std::vector<float> d = to_host(dlogits);
    expect_near_reference(d, expected, "dlogits");
    for (int64_t i = 0; i < N; ++i) {
      if (labels[i] != kIgnoreIndex) continue;
      for (int64_t j = 0; j < V; ++j) EXPECT_EQ(d[i * V + j], 0.0f) << "ignored row " << i;
    }
    // The forward's per-position loss agrees with the same reference.
    Tensor losses = filled({N}, 8.0f);
    CrossEntropyResult r = cross_entropy_forward(logits_t, labels_t, losses, eps);
    EXPECT_EQ(r.counted, counted);
    EXPECT_NEAR(r.loss_sum, cross_entropy_reference(to_double(logits), labels, V, eps), 1e-5);
    std::vector<float> per_position = to_host(losses);
    for (int64_t i = 0; i < N; ++i) {
      std::vector<int32_t> one(labels.size(), kIgnoreIndex);
      one[i] = labels[i];
      const double expected_i = cross_entropy_reference(to_double(logits), one, V, eps);
      EXPECT_NEAR(per_position[i], expected_i, kFp32Tolerance * std::max(1.0, expected_i))
          << "loss of position " << i;
    }
    // In place: dlogits aliasing logits.
    Tensor inplace = on_device(logits, {N, V});
    cross_entropy_backward(inplace, labels_t, eps, loss_scale, inplace);
    EXPECT_EQ(to_host(inplace), d);
  }
};

}  // namespace

TEST_P(CrossEntropyKernel, IgnoreIndex) { check({3, -100, 0, 6, -100, 2}, 7, 0.0f, 20); }
TEST_P(CrossEntropyKernel, LabelSmoothing) { check({3, -100, 0, 6, -100, 2}, 7, 0.1f, 21); }

// Vocabularies of 37 and 129 (off the multiples of 8/16/32), a first and a last label.
TEST_P(CrossEntropyKernel, OddShapes) {
  check({36, 0, -100}, 37, 0.0f, 22);
  check({128, -100, 5, 0, 77}, 129, 0.1f, 23);
}

// A vocabulary several times a CUDA block's threads wide: each thread's slice of a row spans
// several rounds before the block's reductions.
TEST_P(CrossEntropyKernel, WideVocabulary) { check({5, -100, 999}, 1000, 0.1f, 24); }

// Logits near 1000: exp(logit) overflows even a double, so only the row's true max makes the
// exponentials finite (a softmax is shift-invariant, so a wrong but moderate max passes the
// tests above unnoticed).
TEST_P(CrossEntropyKernel, LogitsFarFromZero) { check({5, -100, 299}, 300, 0.1f, 26, 1000.0f); }

// More rows than a CUDA block has threads, so the total's threads each add several rows; the
// host form's sum and count, and the training form's share added to a total on the device.
// Most rows are ignored, which keeps the emulated CUDA backend's threads few.
TEST_P(CrossEntropyKernel, TotalsOverManyRows) {
  std::mt19937 rng(25);
  const int64_t N = 150, V = 37;
  std::vector<int32_t> labels(static_cast<size_t>(N));
  for (int32_t& l : labels) l = rng() % 6 == 0 ? int32_t(rng() % V) : kIgnoreIndex;
  int64_t counted = 0;
  for (int32_t l : labels) counted += l != kIgnoreIndex;
  std::vector<float> logits = random_floats(N * V, rng, -3.0f, 3.0f);
  Tensor logits_t = on_device(logits, {N, V}), labels_t = on_device(labels, {N});
  const double expected = cross_entropy_reference(to_double(logits), labels, V, 0.1);

  Tensor losses = filled({N}, 8.0f);
  CrossEntropyResult r = cross_entropy_forward(logits_t, labels_t, losses, 0.1f);
  EXPECT_EQ(r.counted, counted);
  // Each row's float steps (l - max, the loss) are off the double reference by ~1e-7 relative.
  EXPECT_NEAR(r.loss_sum, expected, kFp32Tolerance * expected);

  // total (one F64) starts at 0.5: two floats' storage on the backend holding its bits.
  const double start = 0.5, global_tokens = 1000.0, accumulation_steps = 4.0;
  std::vector<float> bits(2);
  std::memcpy(bits.data(), &start, sizeof(double));
  Tensor storage = on_device(bits, {2});
  Tensor total{storage.ptr, Shape{1}, DType::F64, storage.device};
  cross_entropy_forward_into(logits_t, labels_t, losses, 0.1f, global_tokens, accumulation_steps,
                             total);
  double got = 0.0;
  copy(total, Tensor{&got, Shape{1}, DType::F64, Device::cpu()});
  const double share = expected / global_tokens / accumulation_steps;
  EXPECT_NEAR(got, start + share, kFp32Tolerance * share);
}

TEST_P(CrossEntropyKernel, RejectsLabelsOutsideTheVocabulary) {
  Tensor logits = filled({2, 3}), d = filled({2, 3});
  Tensor labels = on_device(std::vector<int32_t>{1, 3}, {2});
  EXPECT_THROW(cross_entropy_backward(logits, labels, 0.0f, 1.0f, d), Error);
}

INSTANTIATE_KERNEL_TEST(CrossEntropyKernel);

// The 16-bit twins (bf16, fp16) against the CPU's fp32 op on the same rounded logits: the
// per-position losses, their sum and count and the training form's share (fp32 and double
// whatever the logits' type), and dlogits rounded once, also in place on the logits.
class CrossEntropyKernel16 : public HalfKernelTest {
 protected:
  // loss_scale is 1/counted times `loss_scale_factor` (fp16 training's loss scaling above 1).
  void check(std::vector<int32_t> labels, int64_t V, float eps, uint32_t seed,
             float loss_scale_factor = 1.0f) {
    std::mt19937 rng(seed);
    const int64_t N = int64_t(labels.size());
    int64_t counted = 0;
    for (int32_t l : labels) counted += l != kIgnoreIndex;
    const float loss_scale = loss_scale_factor / float(counted);
    const std::string what = "vocabulary " + std::to_string(V) + ", smoothing " +
                             std::to_string(eps) + ", loss scale " + std::to_string(loss_scale);
    std::vector<float> logits = random_floats(N * V, rng, -3.0f, 3.0f);
    Tensor logits_t = on_device_16(logits, {N, V}), labels_t = on_device(labels, {N});

    std::vector<float> losses_ref(size_t(N), 0.0f), dlogits_ref(size_t(N * V), 0.0f);
    const CrossEntropyResult ref = cross_entropy_forward(
        on_cpu(logits, {N, V}), on_cpu(labels, {N}), on_cpu(losses_ref, {N}), eps);
    cross_entropy_backward(on_cpu(logits, {N, V}), on_cpu(labels, {N}), eps, loss_scale,
                           on_cpu(dlogits_ref, {N, V}));

    Tensor losses = filled({N}, 8.0f);
    const CrossEntropyResult r = cross_entropy_forward(logits_t, labels_t, losses, eps);
    EXPECT_EQ(r.counted, ref.counted) << what;
    EXPECT_NEAR(r.loss_sum, ref.loss_sum, kFp32Tolerance * std::max(1.0, ref.loss_sum)) << what;
    expect_near_reference(to_host(losses), to_double(losses_ref), what + ": losses");

    // The training form: total (one F64, two floats' storage holding its bits) starts at 0.5.
    const double start = 0.5, global_tokens = 1000.0, accumulation_steps = 4.0;
    std::vector<float> bits(2);
    std::memcpy(bits.data(), &start, sizeof(double));
    Tensor storage = on_device(bits, {2});
    Tensor total{storage.ptr, Shape{1}, DType::F64, storage.device};
    Tensor losses_into = filled({N}, 8.0f);
    cross_entropy_forward_into(logits_t, labels_t, losses_into, eps, global_tokens,
                               accumulation_steps, total);
    double got = 0.0;
    copy(total, Tensor{&got, Shape{1}, DType::F64, Device::cpu()});
    const double share = ref.loss_sum / global_tokens / accumulation_steps;
    EXPECT_NEAR(got, start + share, kFp32Tolerance * share) << what << ": total";
    expect_near_reference(to_host(losses_into), to_double(losses_ref), what + ": losses (into)");

    Tensor dlogits = filled_16({N, V}, 4.0f);
    cross_entropy_backward(logits_t, labels_t, eps, loss_scale, dlogits);
    const std::vector<float> d = to_host(dlogits);
    expect_rounded_from(d, dlogits_ref, dtype(), what + ": dlogits");
    for (int64_t i = 0; i < N; ++i) {
      if (labels[i] != kIgnoreIndex) continue;
      for (int64_t j = 0; j < V; ++j)
        ASSERT_EQ(d[i * V + j], 0.0f) << what << ": ignored row " << i;
    }
    // In place: dlogits aliasing logits.
    Tensor inplace = on_device_16(logits, {N, V});
    cross_entropy_backward(inplace, labels_t, eps, loss_scale, inplace);
    EXPECT_EQ(to_host(inplace), d) << what << ": in place";
  }
};

TEST_P(CrossEntropyKernel16, IgnoreIndex) { check({3, -100, 0, 6, -100, 2}, 7, 0.0f, 20); }
TEST_P(CrossEntropyKernel16, LabelSmoothing) { check({3, -100, 0, 6, -100, 2}, 7, 0.1f, 21); }

// Vocabularies of 37 and 129, not multiples of a CUDA block's 128 threads (or of 8/16/32).
TEST_P(CrossEntropyKernel16, OddShapes) {
  check({36, 0, -100}, 37, 0.0f, 22);
  check({128, -100, 5, 0, 77}, 129, 0.1f, 23);
}

// Several rounds of a block's threads per row; and the same loss-scaled as fp16 training does,
// which keeps the gradients' elements well above the fp32 tolerance so their rounding shows.
TEST_P(CrossEntropyKernel16, WideVocabulary) {
  check({5, -100, 999}, 1000, 0.1f, 24);
  check({5, -100, 999}, 1000, 0.1f, 24, 1024.0f);
}

// More rows than a block has threads: the total's threads each add several rows.
TEST_P(CrossEntropyKernel16, TotalsOverManyRows) {
  std::mt19937 rng(25);
  std::vector<int32_t> labels(150);
  for (int32_t& l : labels) l = rng() % 6 == 0 ? int32_t(rng() % 37) : kIgnoreIndex;
  check(labels, 37, 0.1f, 26);
}

// Many rows of a small vocabulary, loss-scaled: the label's probability is large, so rounding
// its element's two terms separately (the softmax's, then the label's) would be an ulp off in
// some rows; the element is one rounding of both.
TEST_P(CrossEntropyKernel16, LabelElementRoundedOnce) {
  std::mt19937 rng(27);
  std::vector<int32_t> labels(64);
  for (int32_t& l : labels) l = int32_t(rng() % 5);
  check(labels, 5, 0.1f, 28, 1024.0f);
}

// The losses are F32 and dlogits the logits' type, refused by the op's check naming the
// tensors; labels stay checked against the vocabulary.
TEST_P(CrossEntropyKernel16, RejectsMixedTypesAndLabelsOutsideTheVocabulary) {
  Tensor logits = filled_16({2, 3}), labels = on_device(std::vector<int32_t>{1, 2}, {2});
  const std::string half = dtype_name(dtype());
  EXPECT_CONTAINS(error_of([&] { cross_entropy_forward(logits, labels, filled_16({2})); }),
                  "losses " + half + "[2] on cuda:0 (the losses are F32)");
  EXPECT_CONTAINS(
      error_of([&] { cross_entropy_backward(logits, labels, 0.0f, 1.0f, filled({2, 3})); }),
      "cross entropy backward: logits " + half + "[2, 3]");
  Tensor fp32_logits = filled({2, 3});
  EXPECT_CONTAINS(
      error_of([&] { cross_entropy_backward(fp32_logits, labels, 0.0f, 1.0f, filled_16({2, 3})); }),
      "dlogits " + half + "[2, 3]");
  Tensor outside = on_device(std::vector<int32_t>{1, 3}, {2});
  EXPECT_CONTAINS(
      error_of([&] { cross_entropy_backward(logits, outside, 0.0f, 1.0f, filled_16({2, 3})); }),
      "label 3 is outside the vocabulary of 3");
}

INSTANTIATE_HALF_KERNEL_TEST(CrossEntropyKernel16);
