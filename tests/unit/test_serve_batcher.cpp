// Batcher: requests with the same key are generated together, within the wait window and
// the batch size; other keys keep their place; a full queue refuses; stop() finishes the
// queue. The work function is a fake that records each batch.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "precis/serve/batcher.h"

namespace {

using precis::serve::Batcher;
using precis::serve::BatcherOptions;
using namespace std::chrono_literals;

struct Recorder {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::vector<int32_t>>>
      batches;                    // key, first token of each input
  std::atomic<bool> hold{false};  // while true, the work blocks (to fill the queue)

  Batcher::Work work() {
    return [this](const std::string& key, const Batcher::Inputs& inputs) {
      while (hold) std::this_thread::sleep_for(1ms);
      std::vector<std::string> out;
      std::vector<int32_t> firsts;
      for (const auto& ids : inputs) {
        out.push_back(key + ":" + std::to_string(ids.at(0)));
        firsts.push_back(ids.at(0));
      }
      std::lock_guard<std::mutex> lock(mutex);
      batches.emplace_back(key, firsts);
      return out;
    };
  }
};

Batcher::Inputs one(int32_t id) { return {{id}}; }

TEST(ServeBatcher, SameKeyWithinTheWindowIsOneBatchInOrder) {
  Recorder rec;
  BatcherOptions options;
  options.max_batch_size = 4;
  options.wait = 1h;  // the batch forms when 4 inputs are there, not by the clock
  std::vector<size_t> observed;
  Batcher batcher(options, rec.work(), [&](size_t n) { observed.push_back(n); });
  auto a = batcher.submit("k", one(1));
  auto b = batcher.submit("k", {{2}, {3}});
  auto c = batcher.submit("k", one(4));
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->get(), std::vector<std::string>{"k:1"});
  EXPECT_EQ(b->get(), (std::vector<std::string>{"k:2", "k:3"}));
  EXPECT_EQ(c->get(), std::vector<std::string>{"k:4"});
  batcher.stop();
  ASSERT_EQ(rec.batches.size(), 1u);
  EXPECT_EQ(rec.batches[0].second, (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(observed, std::vector<size_t>{4});
}

TEST(ServeBatcher, DifferentKeysAreNotMixedAndKeepTheirPlace) {
  Recorder rec;
  BatcherOptions options;
  options.wait = 1h;  // nothing runs until stop(), so all three are queued first
  Batcher batcher(options, rec.work());
  auto a = batcher.submit("greedy", one(1));
  auto b = batcher.submit("beam", one(2));
  auto c = batcher.submit("greedy", one(3));
  ASSERT_TRUE(a && b && c);
  batcher.stop();
  EXPECT_EQ(b->get(), std::vector<std::string>{"beam:2"});
  EXPECT_EQ(a->get(), std::vector<std::string>{"greedy:1"});
  EXPECT_EQ(c->get(), std::vector<std::string>{"greedy:3"});
  ASSERT_EQ(rec.batches.size(), 2u);
  EXPECT_EQ(rec.batches[0], (std::pair<std::string, std::vector<int32_t>>{"greedy", {1, 3}}));
  EXPECT_EQ(rec.batches[1], (std::pair<std::string, std::vector<int32_t>>{"beam", {2}}));
}

TEST(ServeBatcher, BatchSizeIsAnUpperBoundExceptForOneBigRequest) {
  Recorder rec;
  BatcherOptions options;
  options.max_batch_size = 3;
  options.wait = 100ms;
  rec.hold = true;  // queue everything before the first batch is formed
  Batcher batcher(options, rec.work());
  auto big = batcher.submit("k", {{1}, {2}, {3}, {4}, {5}});
  auto a = batcher.submit("k", {{6}, {7}});
  auto b = batcher.submit("k", one(8));
  auto c = batcher.submit("k", {{9}, {10}});
  ASSERT_TRUE(big && a && b && c);
  rec.hold = false;
  EXPECT_EQ(big->get().size(), 5u);
  EXPECT_EQ(c->get(), (std::vector<std::string>{"k:9", "k:10"}));
  batcher.stop();
  ASSERT_EQ(rec.batches.size(), 3u);
  EXPECT_EQ(rec.batches[0].second, (std::vector<int32_t>{1, 2, 3, 4, 5}));  // alone, whole
  EXPECT_EQ(rec.batches[1].second, (std::vector<int32_t>{6, 7, 8}));
  EXPECT_EQ(rec.batches[2].second, (std::vector<int32_t>{9, 10}));
}

TEST(ServeBatcher, FullQueueRefusesAndDepthIsReported) {
  Recorder rec;
  BatcherOptions options;
  options.max_queue = 2;
  options.wait = 0ms;
  options.max_batch_size = 1;
  rec.hold = true;
  Batcher batcher(options, rec.work());
  auto running = batcher.submit("k", one(1));
  // The worker takes the first request off the queue, then blocks in the work (on a loaded
  // machine under TSan that can take a while: the bound only keeps a broken batcher from
  // hanging the test).
  for (int i = 0; i < 60000 && batcher.queue_depth() != 0; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(batcher.queue_depth(), 0u) << "the worker never took the first request";
  auto a = batcher.submit("k", one(2));
  auto b = batcher.submit("k", one(3));
  auto refused = batcher.submit("k", one(4));
  EXPECT_TRUE(running && a && b);
  EXPECT_FALSE(refused);
  EXPECT_EQ(batcher.queue_depth(), 2u);
  rec.hold = false;
  EXPECT_EQ(b->get(), std::vector<std::string>{"k:3"});
  EXPECT_TRUE(batcher.submit("k", one(5)));
}

TEST(ServeBatcher, StopFinishesQueuedRequestsAndRefusesNewOnes) {
  Recorder rec;
  BatcherOptions options;
  options.wait = 1h;  // stop() must not wait for the window (else this test hangs)
  options.max_batch_size = 100;
  Batcher batcher(options, rec.work());
  auto a = batcher.submit("k", one(1));
  auto b = batcher.submit("other", one(2));
  ASSERT_TRUE(a && b);
  batcher.stop();
  EXPECT_EQ(a->get(), std::vector<std::string>{"k:1"});
  EXPECT_EQ(b->get(), std::vector<std::string>{"other:2"});
  EXPECT_FALSE(batcher.submit("k", one(3)));
}

TEST(ServeBatcher, ALoneRequestRunsWhenTheWindowCloses) {
  Recorder rec;
  BatcherOptions options;
  options.wait = 2ms;
  Batcher batcher(options, rec.work());
  auto a = batcher.submit("k", one(7));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->get(), std::vector<std::string>{"k:7"});
}

TEST(ServeBatcher, WorkFailureFailsEveryRequestOfTheBatchOnly) {
  BatcherOptions options;
  options.wait = 1h;
  Batcher batcher(options, [](const std::string& key, const Batcher::Inputs& inputs) {
    if (key == "bad") throw std::runtime_error("boom");
    return std::vector<std::string>(inputs.size(), "fine");
  });
  auto a = batcher.submit("bad", one(1));
  auto b = batcher.submit("bad", one(2));
  auto c = batcher.submit("good", one(3));
  batcher.stop();
  EXPECT_THROW(a->get(), std::runtime_error);
  EXPECT_THROW(b->get(), std::runtime_error);
  EXPECT_EQ(c->get(), std::vector<std::string>{"fine"});
}

}  // namespace
