// What a training run holds and a checkpoint saves: the model and its tokenizer, the gradients
// (a second parameter arena, so one flat buffer for the all-reduce), the optimizer (AdamW, or
// with --zero_stage 1 ZeRO-1's sharded AdamW) and TrainerState. With several ranks every rank
// holds the model, the gradients and (unless ZeRO-1 shards it) the optimizer; only rank 0
// writes files. Model: BartModel or T5Model (explicitly instantiated).
#pragma once

#include <filesystem>
#include <memory>

#include "precis/data/collator.h"
#include "precis/dist/communicator.h"
#include "precis/dist/gradient_buckets.h"
#include "precis/train/model_setup.h"
#include "precis/train/optimizer.h"
#include "precis/train/sharded_adamw.h"
#include "precis/train/trainer_state.h"
#include "precis/train/training_arguments.h"

namespace precis::train {

AdamWSettings adamw_settings(const TrainingArguments& args);

// What the update that ends a step reports.
struct OptimizerStepResult {
  double grad_norm = 0;            // the global norm before clipping
  double exposed_allreduce_s = 0;  // waiting for the bucketed all-reduce the backward did not hide
};

template <class Model>
struct TrainingRun {
  using Config = decltype(Model::config);
  const TrainingArguments& args;
  dist::Communicator& comm;
  Model model;
  std::unique_ptr<tokenize::TextTokenizer> tokenizer;
  ParamsOf<Config> grads;
  Arena grad_arena;
  std::unique_ptr<AdamW<Config>> optimizer;       // zero_stage 0
  std::unique_ptr<ShardedAdamW<Config>> sharded;  // zero_stage 1
  TrainerState state;
  data::CollatorOptions collator;

  TrainingRun(const TrainingArguments& args, dist::Communicator& comm, LoadedModel<Model> loaded);

  size_t optimizer_state_bytes() const;

  // The model as save_pretrained writes it, with its generation config, the tokenizer and
  // training_args.json: a checkpoint's weights, or the final model in output_dir.
  void save_model(const std::filesystem::path& dir) const;

  // The update at the end of a step, learning rate `lr`: ZeRO-1's (reduce-scatter, clip,
  // update this rank's segment, all-gather), or the bucketed all-reduce's end (`grad_sync`,
  // with several ranks), clipping and AdamW. The gradients are zero afterwards.
  OptimizerStepResult optimizer_step(double lr, dist::GradientAllReduce* grad_sync);
};

}  // namespace precis::train
