// Step accounting and the learning-rate schedule, as transformers 4.44's Trainer derives them
// from TrainingArguments (trainer.py _inner_training_loop, training_args.py get_warmup_steps,
// optimization.py get_scheduler with torch's LambdaLR).
//
// Note for the training loop (4.44): an optimizer update happens after every micro-batch
// whose running count *across epochs* is a multiple of gradient_accumulation_steps (or at the
// last micro-batch of an epoch shorter than gradient_accumulation_steps), and training stops
// when global_step reaches total_train_steps(). With len_dataloader not a multiple of GA,
// accumulation groups therefore straddle epoch boundaries. 5.x groups each epoch's micro-batches
// on their own: an update after every gradient_accumulation_steps-th micro-batch of the epoch and
// after its last one.
#pragma once

#include <cstdint>

#include "precis/train/training_arguments.h"

namespace precis::train {

// Optimizer updates per epoch: max(num_batches_per_epoch // gradient_accumulation_steps, 1),
// where num_batches_per_epoch = len(train_dataloader) (ceil(N / batch) unless
// dataloader_drop_last). HF 4.44 floors here; 5.x (--hf_semantics 5) rounds up, its last group
// in an epoch being short.
int64_t num_update_steps_per_epoch(int64_t num_batches_per_epoch, const TrainingArguments& args);

// The scheduler's horizon and the Trainer's max_steps: args.max_steps if > 0, else
// ceil(num_train_epochs * updates_per_epoch) (num_train_epochs may be fractional).
int64_t total_train_steps(int64_t num_update_steps_per_epoch, const TrainingArguments& args);

// Epochs the loop iterates: ceil(max_steps / updates_per_epoch) when max_steps > 0, else
// ceil(num_train_epochs).
int64_t num_train_epochs_to_run(int64_t num_update_steps_per_epoch, const TrainingArguments& args);

// TrainingArguments.get_warmup_steps: warmup_steps if > 0, else ceil(total * warmup_ratio).
int64_t warmup_steps(const TrainingArguments& args, int64_t total_train_steps);

// The schedule's multiplier lambda(step) (get_scheduler's lambdas; `constant` ignores warmup,
// `cosine` uses num_cycles 0.5).
double lr_lambda(SchedulerType type, int64_t step, int64_t total, int64_t warmup);

// Learning rate of the optimizer update number `step` (0-based: the first update uses
// step 0, as LambdaLR is stepped after each update): learning_rate * lr_lambda(...).
double learning_rate_at(const TrainingArguments& args, int64_t step, int64_t total, int64_t warmup);

// precis, with --max_train_time_s and no max_steps: the schedule's horizon is the step the
// time budget reaches at the rate measured so far (`seconds_per_step`, `seconds_left` of the
// budget after update `step`), capped by the epoch-based total, and at least step + 1. So a
// decaying schedule (linear, cosine) ends where the time budget does instead of far beyond.
int64_t time_budget_horizon(int64_t step, double seconds_per_step, double seconds_left, int64_t epoch_total);

}  // namespace precis::train
