// Server metrics in the Prometheus text exposition format (version 0.0.4): requests by
// status, a request latency histogram, a batch size histogram and the queue depth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace precis::serve {

// Cumulative buckets as Prometheus wants them: counts[i] = observations <= bounds[i].
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  // The metric's _bucket, _sum and _count lines.
  std::string render(const std::string& name) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative; the last one is +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
};

class ServerMetrics {
 public:
  ServerMetrics();
  // One HTTP request answered; route is the matched pattern ("/", "/models/{name}", ...),
  // never the raw path, so that clients cannot mint label values.
  void request(const std::string& route, int status);
  // Time to answer one summarization request (whatever its status).
  void latency(double seconds);
  void batch(size_t inputs);
  // The whole exposition; queue_depth is read by the caller at scrape time.
  std::string render(size_t queue_depth, size_t max_queue) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  Histogram latency_;
  Histogram batch_size_;
  uint64_t batches_ = 0;
};

}  // namespace precis::serve
