// When training stops, decided after each optimizer step: at the plan's last step, when the
// time budget (--max_train_time_s, counted from the job's start) is spent, or, with
// --save_on_interrupt, at the end of a step during which any rank saw SIGTERM or SIGINT.
// Every rank must stop after the same step, or the others would wait in a collective for ever:
// rank 0's clock decides the time budget for all, and a signal one rank saw counts for all.
#pragma once

#include <cstdint>

#include "precis/dist/communicator.h"
#include "precis/train/job_clock.h"
#include "precis/train/training_arguments.h"

namespace precis::train {

struct StopDecision {
  bool stop = false;
  bool interrupted = false;  // by a signal: the run is not finished, a rerun resumes
};

class StopPolicy {
 public:
  StopPolicy(const TrainingArguments& args, dist::Communicator& comm,
             JobClock::time_point job_start);
  // With --save_on_interrupt, from here on a signal asks for a stop instead of killing.
  void watch_for_interrupts();
  // After update `step` of `total_steps` (collective with several ranks).
  StopDecision after_step(int64_t step, int64_t total_steps);

 private:
  const TrainingArguments& args_;
  dist::Communicator& comm_;
  JobClock::time_point job_start_;
};

}  // namespace precis::train
