// The end-of-run summary a cluster user reads off the bill: world size, wall and training
// time, throughput, instance-seconds (wall x hosts) and, with --price_per_hour (per host),
// the cost. With several ranks, how much of the gradient all-reduce the backward hid.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "precis/kernels/cpu/blas_core.h"

namespace precis::train {

// Where a training step's time goes, in seconds per optimizer step, the mean over ranks: the
// breakdown a profile starts from. Host clock: on CPU each part is its work; the all-reduce
// wait holds both the communication the backward did not hide and the time this rank waited
// for a slower one (token-budget shards differ in size).
struct StepTimes {
  double batch_s = 0;           // collating the shard: token ids to padded tensors
  double forward_s = 0;         // the model's forward and the loss
  double backward_s = 0;        // the backward, with the all-reduce calls made between its stages
  double allreduce_wait_s = 0;  // waiting for the bucketed all-reduce after the backward
  double optimizer_s = 0;       // unscaling, the norm and clipping, AdamW, zeroing the gradients
  double other_s = 0;           // the rest: the loss read, logging, evaluation, checkpoints

  StepTimes& operator+=(const StepTimes& o);
  StepTimes scaled(double factor) const;
  nlohmann::json to_json() const;  // in ms
};

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
  StepTimes step_times;          // per step
  cpu::BlasReport blas;          // the BLAS library, the core it runs and who chose it, the CPU

  double instance_seconds() const { return wall_s * hosts; }
  double hidden_fraction() const;  // of the all-reduce, behind the backward (0..1)
  nlohmann::json to_json() const;
  std::string text() const;  // a few lines for the log
};

}  // namespace precis::train
