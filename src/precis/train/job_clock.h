// The clock a training job measures itself with: its time budget (--max_train_time_s) counts
// from the job's start (loading and tokenizing included), its speeds from training's start.
// Steady, so a change of the system clock moves neither.
#pragma once

#include <chrono>

namespace precis::train {

using JobClock = std::chrono::steady_clock;

inline double seconds_since(JobClock::time_point start) {
  return std::chrono::duration<double>(JobClock::now() - start).count();
}

}  // namespace precis::train
