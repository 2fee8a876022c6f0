#include "precis/dist/gradient_buckets.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace precis::dist {

std::vector<GradientBucket> plan_buckets(const FlatLayout& layout, int64_t bucket_floats,
                                         int64_t first_bucket_floats) {
  std::vector<GradientBucket> buckets;
  int64_t hi = layout.size, lo = layout.size;
  int stage = -1, previous = -1;
  auto close = [&] {
    if (hi > lo) buckets.push_back({lo, hi, stage});
    hi = lo;
    stage = -1;
  };
  for (auto t = layout.tensors.rbegin(); t != layout.tensors.rend(); ++t) {
    const int s = t->stage;
    // A tensor finished much later (or earlier) than its neighbour starts a bucket of its own,
    // so a small late tensor (a layernorm_embedding) does not hold back a whole bucket.
    if (previous >= 0 && std::abs(s - previous) > 1) close();
    previous = s;
    int64_t start = t->offset;
    while (lo > start) {
      const int64_t cap = buckets.empty() ? first_bucket_floats : bucket_floats;
      lo = std::max(start, hi - cap);
      stage = std::max(stage, s);
      if (hi - lo >= cap) close();
    }
  }
  close();
  std::stable_sort(buckets.begin(), buckets.end(),
                   [](const GradientBucket& a, const GradientBucket& b) { return a.ready_stage < b.ready_stage; });
  return buckets;
}

GradientAllReduce::GradientAllReduce(const FlatGradients& grads, Communicator& comm,
                                     int64_t bucket_bytes, int64_t first_bucket_bytes)
    : comm_(comm), flat_(grads.flat), final_stage_(grads.final_stage) {
  buckets_ = plan_buckets(grads.layout, std::max<int64_t>(1, bucket_bytes / 4),
                          std::max<int64_t>(1, first_bucket_bytes / 4));
}

void GradientAllReduce::stage_done(int stage) {
  const auto start = std::chrono::steady_clock::now();
  while (started_ < buckets_.size() && buckets_[started_].ready_stage <= stage) {
    const GradientBucket& b = buckets_[started_++];
    handles_.push_back(comm_.all_reduce_async(flat_.slice(b.begin, b.end), ReduceOp::Sum, current_stream()));
  }
  comm_.progress();
  in_calls_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

GradientAllReduce::ExposedTime GradientAllReduce::finish() {
  const auto start = std::chrono::steady_clock::now();
  const double in_backward = in_calls_s_;
  stage_done(final_stage_);
  for (Communicator::Handle h : handles_) comm_.wait(h);
  handles_.clear();
  started_ = 0;
  in_calls_s_ = 0;
  return {in_backward,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

}  // namespace precis::dist
