#include "precis/serve/batcher.h"

#include <algorithm>
#include <exception>
#include <iterator>
#include <stdexcept>

namespace precis::serve {

Batcher::Batcher(BatcherOptions options, Work work, BatchObserver observer)
    : options_(options), work_(std::move(work)), observer_(std::move(observer)) {
  if (options_.max_batch_size == 0) options_.max_batch_size = 1;
  thread_ = std::thread([this] { worker(); });
}

Batcher::~Batcher() { stop(); }

std::optional<std::future<std::vector<std::string>>> Batcher::submit(std::string key,
                                                                     Inputs inputs) {
  std::future<std::vector<std::string>> future;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || queue_.size() >= options_.max_queue) return std::nullopt;
    Pending p{std::move(key), std::move(inputs), std::chrono::steady_clock::now(), {}};
    future = p.result.get_future();
    queue_.push_back(std::move(p));
  }
  arrived_.notify_one();
  return future;
}

void Batcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  arrived_.notify_all();
  if (thread_.joinable()) thread_.join();
}

size_t Batcher::queue_depth() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

void Batcher::release_hold() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    options_.hold_first_batch_until_queued = 0;
  }
  arrived_.notify_all();
}

size_t Batcher::joinable_inputs(const std::string& key) const {
  size_t n = 0;
  for (const Pending& p : queue_)
    if (p.key == key) n += p.inputs.size();
  return n;
}

std::vector<Batcher::Pending> Batcher::take_batch() {
  std::unique_lock<std::mutex> lock(mutex_);
  arrived_.wait(lock, [&] {
    return stopping_ ||
           queue_.size() >= std::max<size_t>(1, options_.hold_first_batch_until_queued);
  });
  options_.hold_first_batch_until_queued = 0;
  if (queue_.empty()) return {};
  const std::string key = queue_.front().key;
  const auto deadline = queue_.front().arrived + options_.wait;
  // While stopping, queued requests run at once: nothing new can join them.
  arrived_.wait_until(lock, deadline,
                      [&] { return stopping_ || joinable_inputs(key) >= options_.max_batch_size; });
  std::vector<Pending> batch;
  size_t inputs = 0;
  for (auto it = queue_.begin(); it != queue_.end();) {
    bool fits = batch.empty() || inputs + it->inputs.size() <= options_.max_batch_size;
    if (it->key == key && fits) {
      inputs += it->inputs.size();
      batch.push_back(std::move(*it));
      it = queue_.erase(it);
    } else {
      ++it;
    }
    if (inputs >= options_.max_batch_size) break;
  }
  return batch;
}

void Batcher::worker() {
  for (;;) {
    std::vector<Pending> batch = take_batch();
    if (batch.empty()) return;  // stopping, and nothing left
    Inputs inputs;
    for (Pending& p : batch)
      for (auto& ids : p.inputs) inputs.push_back(std::move(ids));
    if (observer_) observer_(inputs.size());
    try {
      std::vector<std::string> outputs = work_(batch.front().key, inputs);
      if (outputs.size() != inputs.size())
        throw std::runtime_error("batch work returned " + std::to_string(outputs.size()) +
                                 " outputs for " + std::to_string(inputs.size()) + " inputs");
      size_t next = 0;
      for (Pending& p : batch) {
        std::vector<std::string> mine(
            std::make_move_iterator(outputs.begin() + next),
            std::make_move_iterator(outputs.begin() + next + p.inputs.size()));
        next += p.inputs.size();
        p.result.set_value(std::move(mine));
      }
    } catch (...) {
      for (Pending& p : batch) p.result.set_exception(std::current_exception());
    }
  }
}

}  // namespace precis::serve
