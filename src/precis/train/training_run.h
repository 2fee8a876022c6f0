// What a training run holds and a checkpoint saves: the model and its tokenizer, the gradients
// (a second parameter arena, so one flat buffer for the all-reduce), the optimizer (AdamW, or
// with --zero_stage 1 ZeRO-1's sharded AdamW) and TrainerState. With several ranks every rank
// holds the model, the gradients and (unless ZeRO-1 shards it) the optimizer; only rank 0
// writes files. Model: a family's (model/families.h; instantiated for each).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "precis/data/collator.h"
#include "precis/dist/communicator.h"
#include "precis/dist/gradient_buckets.h"
#include "precis/train/compute_copy.h"
#include "precis/train/loss_scaler.h"
#include "precis/train/model_setup.h"
#include "precis/train/optimizer.h"
#include "precis/train/sharded_adamw.h"
#include "precis/train/trainer_state.h"
#include "precis/train/training_arguments.h"

namespace precis::train {

AdamWSettings adamw_settings(const TrainingArguments& args);

// What the update that ends a step reports.
struct OptimizerStepResult {
  double grad_norm = 0;            // the global norm before clipping, unless norm_on_device
  bool norm_on_device = false;     // the norm's square is where optimizer_step was told to put it
  // Waiting for the bucketed all-reduce the backward did not hide: calls made during the
  // backward (which its clock counted too) and after it, inside optimizer_step.
  dist::GradientAllReduce::ExposedTime exposed_allreduce;
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
  // Mixed precision (--bf16 / --fp16 on a GPU): the 16-bit weights the model computes with,
  // refreshed from the fp32 master after every update, and the parameters the model takes
  // (ComputeCopy::mixed); none in fp32, where the model computes with the master itself.
  std::unique_ptr<ComputeCopy<Config>> compute;
  ParamsOf<Config> compute_params;
  std::optional<LossScaler> scaler;  // --fp16

  TrainingRun(const TrainingArguments& args, dist::Communicator& comm, LoadedModel<Model> loaded);

  size_t optimizer_state_bytes() const;

  // The activations' element type: the 16-bit compute type under mixed precision, else F32.
  DType compute_dtype() const { return compute ? compute->flat().dtype : DType::F32; }
  // The parameters the forward and backward take.
  const ParamsOf<Config>& params_to_compute_with() const {
    return compute ? compute_params : model.params;
  }
  // The compute copy from the master, after the model's weights change (start, resume, step).
  void refresh_compute();

  // The model as save_pretrained writes it, with its generation config, the tokenizer and
  // training_args.json: a checkpoint's weights, or the final model in output_dir.
  void save_model(const std::filesystem::path& dir) const;

  // The update at the end of a step, learning rate `lr`: ZeRO-1's (reduce-scatter, clip,
  // update this rank's segment, all-gather), or the bucketed all-reduce's end (`grad_sync`,
  // with several ranks), clipping and AdamW. The gradients are zero afterwards. Under --fp16
  // the gradients are unscaled first, and a step with an inf or NaN in them is skipped.
  // Without ZeRO-1 nothing is read back: the norm's square goes to `norm_squared` (one F64 on
  // the training device), and norm_read() follows once the caller has read it.
  OptimizerStepResult optimizer_step(double lr, dist::GradientAllReduce* grad_sync,
                                     const Tensor& norm_squared);
  // The step's norm, read: under --fp16 the loss scaler learns whether the step was skipped.
  void norm_read(double grad_norm);
};

}  // namespace precis::train
