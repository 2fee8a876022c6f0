// Data parallelism's pieces that need no second process: how global batches are split
// over ranks (against the one-process batches), how the gradient buffer is bucketed, and
// the single-process communicator.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <numeric>
#include <set>
#include <thread>

#include "precis/dist/gradient_buckets.h"
#include "precis/dist/host_threads.h"
#include "precis/dist/single_process_communicator.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/common/flat_parameters.h"
#include "precis/train/batch_sampler.h"
#include "weight_bias_weight.h"

namespace precis {
namespace {

std::vector<int64_t> lengths_of(int n) {
  std::vector<int64_t> lengths;
  for (int i = 0; i < n; ++i) lengths.push_back(3 + (i * 7) % 11);
  return lengths;
}

TEST(DataParallel, OneRankGlobalBatchesAreTheOneProcessBatches) {
  for (int mode = 0; mode < 3; ++mode) {
    train::SamplerOptions o{4, mode == 1, mode == 2 ? 30 : 0, false, 11};
    auto lengths = lengths_of(37);
    for (int64_t epoch : {0, 3}) {
      auto batches = train::epoch_batches(lengths, o, epoch);
      auto global = train::epoch_global_batches(lengths, o, epoch, 1);
      ASSERT_EQ(global.size(), batches.size()) << mode;
      for (size_t k = 0; k < batches.size(); ++k) EXPECT_EQ(global[k].shards[0], batches[k]) << mode;
    }
  }
}

TEST(DataParallel, RanksSplitTheBatchOfBatchSizeTimesWorld) {
  // 2 ranks x 3 hold, step for step, the examples of 1 process x 6, in order.
  for (bool grouped : {false, true}) {
    auto lengths = lengths_of(29);
    train::SamplerOptions two{3, grouped, 0, false, 5}, one{6, grouped, 0, false, 5};
    for (int world : {2, 3}) {
      one.batch_size = 3 * world;
      auto global = train::epoch_global_batches(lengths, two, 1, world);
      auto reference = train::epoch_batches(lengths, one, 1);
      if (grouped) {
        // group_by_length's megabatches follow the per-device batch size: the order is the
        // per-device order whatever the world size.
        auto order = train::example_order(lengths, two, 1);
        std::vector<int64_t> flat;
        for (auto& g : global)
          for (auto& s : g.shards) flat.insert(flat.end(), s.begin(), s.end());
        EXPECT_EQ(flat, order);
        continue;
      }
      ASSERT_EQ(global.size(), reference.size());
      for (size_t k = 0; k < global.size(); ++k) {
        std::vector<int64_t> joined;
        for (int r = 0; r < world; ++r) {
          EXPECT_EQ(global[k].first_row(r), int64_t(joined.size()));
          joined.insert(joined.end(), global[k].shards[size_t(r)].begin(), global[k].shards[size_t(r)].end());
        }
        EXPECT_EQ(joined, reference[k]);
        // Shards differ in size by at most one (the last, short batch).
        auto [lo, hi] = std::minmax_element(global[k].shards.begin(), global[k].shards.end(),
                                            [](auto& a, auto& b) { return a.size() < b.size(); });
        EXPECT_LE(hi->size() - lo->size(), 1u);
      }
    }
  }
}

TEST(DataParallel, TokenBudgetRanksTakeConsecutiveBatches) {
  auto lengths = lengths_of(41);
  train::SamplerOptions o{4, false, 30, false, 9};
  auto batches = train::epoch_batches(lengths, o, 2);
  auto global = train::epoch_global_batches(lengths, o, 2, 3);
  ASSERT_EQ(global.size(), (batches.size() + 2) / 3);
  for (size_t k = 0; k < batches.size(); ++k) EXPECT_EQ(global[k / 3].shards[k % 3], batches[k]);
  EXPECT_FALSE(global[0].shared_padding);
}

// Token-budget batches draw their examples at random among those of one length, anew each
// epoch: every example once per epoch, each batch within the budget and sorted lengths apart,
// and neither a batch of file neighbours (the Debian data's alphabetical runs of one package
// family) nor the same batches every epoch.
TEST(TokenBudgetBatches, ARandomDrawAmongEqualLengthsEachEpoch) {
  std::vector<int64_t> lengths(200, 10);
  for (int i = 0; i < 200; i += 5) lengths[size_t(i)] = 4;
  train::SamplerOptions o{4, false, 40, false, 3};
  std::vector<std::set<std::vector<int64_t>>> epochs;
  for (int64_t epoch : {0, 1}) {
    std::vector<int64_t> seen;
    std::set<std::vector<int64_t>> sorted_batches;
    int64_t neighbour_runs = 0;
    for (const auto& b : train::epoch_batches(lengths, o, epoch)) {
      int64_t longest = 0;
      for (int64_t i : b) longest = std::max(longest, lengths[size_t(i)]);
      EXPECT_LE(longest * int64_t(b.size()), o.max_tokens_per_batch);
      for (int64_t i : b) EXPECT_EQ(lengths[size_t(i)], lengths[size_t(b[0])]);  // one length
      std::vector<int64_t> sorted(b.begin(), b.end());
      std::sort(sorted.begin(), sorted.end());
      neighbour_runs += sorted.back() - sorted.front() < int64_t(2 * b.size());
      sorted_batches.insert(sorted);
      seen.insert(seen.end(), b.begin(), b.end());
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> all(lengths.size());
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(seen, all) << "epoch " << epoch;
    EXPECT_LT(neighbour_runs, 5) << "epoch " << epoch << ": batches of file neighbours";
    epochs.push_back(sorted_batches);
  }
  std::vector<std::vector<int64_t>> shared;
  std::set_intersection(epochs[0].begin(), epochs[0].end(), epochs[1].begin(), epochs[1].end(),
                        std::back_inserter(shared));
  EXPECT_LT(shared.size(), 3u) << "the same batches in epochs 0 and 1";
}

TEST(DataParallel, BucketsCoverTheGradientBufferOnceInBackwardOrder) {
  BartConfig c = bart_config_from("bart-tiny");
  c.vocab_size = 1000;
  Arena arena(parameter_bytes(c));
  BartParams grads;
  allocate_parameters(c, grads, arena);
  dist::FlatLayout layout = flat_layout(c, grads);
  const int64_t cap = 5000, first_cap = 700;
  auto buckets = dist::plan_buckets(layout, cap, first_cap);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (auto& b : buckets) {
    EXPECT_LE(b.end - b.begin, cap);
    ranges.push_back({b.begin, b.end});
  }
  // The bucket at the end of the buffer is the small first one.
  auto last = std::max_element(buckets.begin(), buckets.end(), [](auto& a, auto& b) { return a.end < b.end; });
  EXPECT_LE(last->end - last->begin, first_cap);
  std::sort(ranges.begin(), ranges.end());
  int64_t at = 0;
  for (auto& [b, e] : ranges) {
    EXPECT_EQ(b, at);
    at = e;
  }
  EXPECT_EQ(at, layout.size);
  // Started in the order the backward finishes them; each waits for all its tensors.
  for (size_t i = 1; i < buckets.size(); ++i) EXPECT_LE(buckets[i - 1].ready_stage, buckets[i].ready_stage);
  for (auto& t : layout.tensors)
    for (auto& b : buckets)
      if (t.offset < b.end && t.offset + t.numel > b.begin) {
        EXPECT_GE(b.ready_stage, t.stage) << t.name;
      }
  auto stage_of = [&](const std::string& name) {
    for (auto& t : layout.tensors)
      if (t.name == name) return t.stage;
    ADD_FAILURE() << name << " not in the layout";
    return -1;
  };
  EXPECT_EQ(stage_of("model.shared.weight"), final_backward_stage(c));
  EXPECT_EQ(stage_of("model.decoder.layers." + std::to_string(c.decoder_layers - 1) + ".fc1.weight"), 0);
  EXPECT_EQ(stage_of("model.decoder.layernorm_embedding.bias"), c.decoder_layers);
  EXPECT_EQ(stage_of("model.encoder.layers.0.fc2.bias"), c.decoder_layers + c.encoder_layers);
}

// A communicator whose every progress call takes `progress_s`: the time a step spends in
// communication calls, without a second process.
class SlowProgressCommunicator final : public dist::Communicator {
 public:
  double progress_s = 0;
  int rank() const override { return 0; }
  int world_size() const override { return 2; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 2; }
  int hosts() const override { return 1; }
  void all_reduce(const Tensor&, dist::ReduceOp, Stream) override {}
  void all_reduce(std::span<double>, dist::ReduceOp) override {}
  void reduce_scatter(const Tensor&, std::span<const int64_t>, dist::ReduceOp, Stream) override {}
  void all_gather(const Tensor&, std::span<const int64_t>, Stream) override {}
  std::vector<std::string> all_gather_bytes(const std::string& mine) override {
    return {mine, mine};
  }
  void broadcast(std::span<std::byte>, int) override {}
  void barrier() override {}
  Handle all_reduce_async(const Tensor&, dist::ReduceOp, Stream) override { return 0; }
  void progress() override {
    std::this_thread::sleep_for(std::chrono::duration<double>(progress_s));
  }
  double wait(Handle) override { return 0.0; }
  [[noreturn]] void abort(int) override { std::abort(); }
};

// The calls made during the backward are told apart from the wait after it: the backward's
// clock counts the first, the optimizer's the second, and a step's parts must add up to it
// (a sum of both reported as the wait after the backward made the optimizer's part negative).
TEST(DataParallel, ExposedAllReduceTimeIsSplitAtTheEndOfTheBackward) {
  BartConfig c = bart_config_from("bart-tiny");
  c.vocab_size = 1000;
  Arena arena(parameter_bytes(c));
  BartParams grads;
  allocate_parameters(c, grads, arena);
  SlowProgressCommunicator comm;
  dist::GradientAllReduce sync(flat_gradients(c, grads), comm, 5000 * 4, 700 * 4);
  const double in_backward = 0.02;
  comm.progress_s = in_backward;
  const int stages = final_backward_stage(c);  // stage_done for 0 .. stages-1 in the backward
  for (int s = 0; s < stages; ++s) sync.stage_done(s);
  comm.progress_s = 0;
  const dist::GradientAllReduce::ExposedTime first = sync.finish();
  EXPECT_GE(first.in_backward_s, stages * in_backward);
  EXPECT_LT(first.after_backward_s, first.in_backward_s / 2)
      << "the backward's calls counted after it";
  // The next step starts from nothing.
  comm.progress_s = 0.01;
  const dist::GradientAllReduce::ExposedTime second = sync.finish();
  EXPECT_EQ(second.in_backward_s, 0.0);
  EXPECT_GE(second.after_backward_s, 0.01);
}

TEST(DataParallel, RanksSharingAHostShareItsCores) {
  EXPECT_EQ(dist::threads_per_rank(1, 16, 16, nullptr), 0);     // alone: OpenMP's own default
  EXPECT_EQ(dist::threads_per_rank(4, 16, 16, nullptr), 4);
  EXPECT_EQ(dist::threads_per_rank(16, 16, 16, nullptr), 1);
  EXPECT_EQ(dist::threads_per_rank(32, 16, 16, nullptr), 1);    // oversubscribed: one each
  EXPECT_EQ(dist::threads_per_rank(2, 16, 1, nullptr), 1);      // bound to one core by mpirun
  EXPECT_EQ(dist::threads_per_rank(2, 16, 4, nullptr), 4);      // bound to a 4-core set
  EXPECT_EQ(dist::threads_per_rank(4, 16, 16, "3"), 0);         // the user decides
  EXPECT_EQ(dist::threads_per_rank(4, 16, 16, ""), 4);
}

TEST(DataParallel, SingleProcessCollectivesLeaveDataAlone) {
  dist::SingleProcessCommunicator comm;
  std::vector<float> x = {1, 2, 3};
  const Tensor flat{x.data(), Shape{3}, DType::F32, Device::cpu()};
  comm.all_reduce(flat, dist::ReduceOp::Average, {});
  std::vector<int64_t> counts = {3};
  comm.reduce_scatter(flat, counts, dist::ReduceOp::Sum, {});
  comm.all_gather(flat, counts, {});
  comm.wait(comm.all_reduce_async(flat, dist::ReduceOp::Sum, {}));
  EXPECT_EQ(x, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(comm.all_gather_bytes("abc"), std::vector<std::string>{"abc"});
  EXPECT_EQ(dist::even_segments(10, 3), (std::vector<int64_t>{4, 3, 3}));
  EXPECT_EQ(dist::even_segments(2, 3), (std::vector<int64_t>{1, 1, 0}));
}

// A rank's segment of the mask starts at its first element, wherever that falls in a word.
TEST(WeightDecayMask, OfASegment) {
  const dist::FlatLayout layout = testing::weight_bias_weight(40, 40, 30, 50);  // 120 floats
  std::vector<uint32_t> bits = dist::weight_decay_mask(layout, 35, 100);  // 65 elements
  ASSERT_EQ(bits.size(), 3u);
  for (int64_t j = 0; j < 65; ++j) {
    int64_t i = 35 + j;
    bool expected = i < 40 || i >= 70;
    EXPECT_EQ(bool((bits[size_t(j / 32)] >> (j % 32)) & 1u), expected) << "element " << i;
  }
  EXPECT_EQ(bits[2] >> 1, 0u) << "no bits past the segment's end";
}

}  // namespace
}  // namespace precis
