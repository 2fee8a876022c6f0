#include "precis/train/stop_policy.h"

#include <span>

#include "precis/train/interrupt.h"

namespace precis::train {

StopPolicy::StopPolicy(const TrainingArguments& a, dist::Communicator& comm,
                       JobClock::time_point job_start)
    : args_(a), comm_(comm), job_start_(job_start) {}

void StopPolicy::watch_for_interrupts() {
  if (args_.save_on_interrupt) InterruptRequest::install();
}

StopDecision StopPolicy::after_step(int64_t step, int64_t total_steps) {
  const bool several_ranks = comm_.world_size() > 1;
  const bool time_budget = args_.max_train_time_s > 0;
  StopDecision d;
  d.stop =
      step >= total_steps || (time_budget && seconds_since(job_start_) >= args_.max_train_time_s);
  if (several_ranks && time_budget) {
    int64_t agreed = d.stop;
    comm_.broadcast_value(agreed, 0);
    d.stop = agreed != 0;
  }
  if (args_.save_on_interrupt) {
    double seen = InterruptRequest::requested() ? 1.0 : 0.0;
    if (several_ranks) comm_.all_reduce(std::span<double>(&seen, 1), dist::ReduceOp::Sum);
    d.interrupted = seen > 0;
    d.stop = d.stop || d.interrupted;
  }
  return d;
}

}  // namespace precis::train
