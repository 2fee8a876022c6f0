// The end-of-run summary a cluster user reads off the bill: world size, wall and training
// time, throughput, instance-seconds (wall x hosts) and, with --price_per_hour (per host),
// the cost. With several ranks, how much of the gradient all-reduce the backward hid.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace precis::train {

struct JobSummary {
  int world_size = 1, hosts = 1, zero_stage = 0;
  double wall_s = 0, train_s = 0;
  int64_t steps = 0, samples = 0, tokens = 0;
  double price_per_hour = 0;  // per host; 0: unknown
  size_t optimizer_state_bytes_per_rank = 0;
  // Data parallelism: a blocking all-reduce of the whole gradient buffer (measured once) and
  // the mean time per step the training actually waited for the bucketed one.
  double allreduce_blocking_s = 0, allreduce_exposed_s = 0;
  int64_t gradient_buckets = 0;  // all-reduced one by one as the backward completes them

  double instance_seconds() const { return wall_s * hosts; }
  double hidden_fraction() const;  // of the all-reduce, behind the backward (0..1)
  nlohmann::json to_json() const;
  std::string text() const;  // a few lines for the log
};

}  // namespace precis::train
