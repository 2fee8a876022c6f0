// Dynamic batching: requests that share generation settings (the same key) are generated
// together. The worker takes the oldest request, waits up to `wait` from its arrival for
// more with the same key, and runs them as one batch of at most max_batch_size inputs (a
// request bigger than that runs alone, whole). Requests with other keys keep their place.
// The queue is bounded: submit() refuses when max_queue requests are waiting, which the
// server answers with 503 and Retry-After.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace precis::serve {

struct BatcherOptions {
  size_t max_batch_size = 16;            // inputs per batch
  std::chrono::microseconds wait{5000};  // window for more requests to join a batch
  size_t max_queue = 64;                 // requests waiting (the running batch excluded)
  // A test hook, not a feature (0 outside tests): the first batch is not taken before this
  // many requests are queued, or release_hold() or stop() is called; later batches are not
  // held. Lets a test put requests in one batching window without sleeping.
  size_t hold_first_batch_until_queued = 0;
};

class Batcher {
 public:
  using Inputs = std::vector<std::vector<int32_t>>;
  // Runs one batch: inputs of every request joined, in queue order; returns one output per
  // input. Called on the worker thread only. An exception fails every request of the batch.
  using Work =
      std::function<std::vector<std::string>(const std::string& key, const Inputs& inputs)>;
  // Told the number of inputs of each batch before it runs (metrics).
  using BatchObserver = std::function<void(size_t inputs)>;

  Batcher(BatcherOptions options, Work work, BatchObserver observer = {});
  ~Batcher();  // stop()
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // The future gives one output per input; nullopt when the queue is full or stopping.
  std::optional<std::future<std::vector<std::string>>> submit(std::string key, Inputs inputs);

  // Refuses new requests, finishes every queued one, joins the worker. Idempotent.
  void stop();

  size_t queue_depth() const;

  // Ends the test hook's hold on the first batch (see BatcherOptions); nothing otherwise.
  void release_hold();

 private:
  struct Pending {
    std::string key;
    Inputs inputs;
    std::chrono::steady_clock::time_point arrived;
    std::promise<std::vector<std::string>> result;
  };

  void worker();
  // Removes from the queue the oldest request and the ones that join its batch.
  std::vector<Pending> take_batch();
  size_t joinable_inputs(const std::string& key) const;

  BatcherOptions options_;
  Work work_;
  BatchObserver observer_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace precis::serve
