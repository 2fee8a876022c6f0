#include "precis/serve/metrics.h"

#include <charconv>

namespace precis::serve {

namespace {

// Shortest text that reads back as the same double ("0.005", not "0.0050000000000000001").
std::string number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
  ++count_;
}

std::string Histogram::render(const std::string& name) const {
  std::string s;
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    s += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  s += name + "_sum " + number(sum_) + "\n";
  s += name + "_count " + std::to_string(count_) + "\n";
  return s;
}

ServerMetrics::ServerMetrics()
    : latency_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}),
      batch_size_({1, 2, 4, 8, 16, 32, 64, 128}) {}

void ServerMetrics::request(const std::string& route, int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{route, status}];
}

void ServerMetrics::latency(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  latency_.observe(seconds);
}

void ServerMetrics::batch(size_t inputs) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++batches_;
  batch_size_.observe(double(inputs));
}

std::string ServerMetrics::render(size_t queue_depth, size_t max_queue) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string s;
  s += "# HELP precis_requests_total HTTP requests answered, by route and status code.\n";
  s += "# TYPE precis_requests_total counter\n";
  for (const auto& [key, n] : requests_)
    s += "precis_requests_total{route=\"" + key.first + "\",code=\"" + std::to_string(key.second) +
         "\"} " + std::to_string(n) + "\n";
  s += "# HELP precis_request_duration_seconds Time to answer a summarization request, from its "
       "body read to its response ready.\n";
  s += "# TYPE precis_request_duration_seconds histogram\n";
  s += latency_.render("precis_request_duration_seconds");
  s += "# HELP precis_batch_size Inputs generated together in one batch.\n";
  s += "# TYPE precis_batch_size histogram\n";
  s += batch_size_.render("precis_batch_size");
  s += "# HELP precis_queue_depth Requests waiting for a batch.\n";
  s += "# TYPE precis_queue_depth gauge\n";
  s += "precis_queue_depth " + std::to_string(queue_depth) + "\n";
  s += "# HELP precis_queue_capacity Requests the queue holds before answering 503.\n";
  s += "# TYPE precis_queue_capacity gauge\n";
  s += "precis_queue_capacity " + std::to_string(max_queue) + "\n";
  return s;
}

}  // namespace precis::serve
