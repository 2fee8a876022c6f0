#include "precis/train/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace precis::train {

int64_t num_update_steps_per_epoch(int64_t num_batches_per_epoch, const TrainingArguments& args) {
  const int64_t ga = args.gradient_accumulation_steps;
  if (parse_hf_semantics(args.hf_semantics, "--hf_semantics") == HfSemantics::kV5)
    return std::max<int64_t>((num_batches_per_epoch + ga - 1) / ga, 1);
  return std::max<int64_t>(num_batches_per_epoch / ga, 1);
}

int64_t total_train_steps(int64_t updates_per_epoch, const TrainingArguments& args) {
  if (args.max_steps > 0) return args.max_steps;
  // Python: math.ceil(float * int), the same IEEE double product.
  return int64_t(std::ceil(args.num_train_epochs * double(updates_per_epoch)));
}

int64_t num_train_epochs_to_run(int64_t updates_per_epoch, const TrainingArguments& args) {
  if (args.max_steps > 0)
    return args.max_steps / updates_per_epoch + (args.max_steps % updates_per_epoch > 0 ? 1 : 0);
  return int64_t(std::ceil(args.num_train_epochs));
}

int64_t warmup_steps(const TrainingArguments& args, int64_t total) {
  if (args.warmup_steps > 0) return args.warmup_steps;
  return int64_t(std::ceil(double(total) * args.warmup_ratio));
}

// Each branch is the lambda of transformers.optimization, operation for operation, so the
// doubles agree bit for bit with Python's.
double lr_lambda(SchedulerType type, int64_t step, int64_t total, int64_t warmup) {
  double k = double(step);
  switch (type) {
    case SchedulerType::kConstant:
      return 1.0;
    case SchedulerType::kConstantWithWarmup:
      if (step < warmup) return k / std::max(1.0, double(warmup));
      return 1.0;
    case SchedulerType::kLinear:
      if (step < warmup) return k / double(std::max<int64_t>(1, warmup));
      return std::max(0.0, double(total - step) / double(std::max<int64_t>(1, total - warmup)));
    case SchedulerType::kCosine: {
      if (step < warmup) return k / double(std::max<int64_t>(1, warmup));
      const double num_cycles = 0.5;
      double progress = double(step - warmup) / double(std::max<int64_t>(1, total - warmup));
      return std::max(0.0, 0.5 * (1.0 + std::cos(std::numbers::pi * num_cycles * 2.0 * progress)));
    }
  }
  return 1.0;
}

double learning_rate_at(const TrainingArguments& args, int64_t step, int64_t total,
                        int64_t warmup) {
  return args.learning_rate * lr_lambda(args.lr_scheduler_type, step, total, warmup);
}

int64_t time_budget_horizon(int64_t step, double seconds_per_step, double seconds_left, int64_t epoch_total) {
  if (!(seconds_per_step > 0)) return epoch_total;
  const double reachable = std::floor(std::max(0.0, seconds_left) / seconds_per_step);
  const double horizon = double(step) + std::max(1.0, reachable);
  return horizon >= double(epoch_total) ? epoch_total : int64_t(horizon);
}

}  // namespace precis::train
