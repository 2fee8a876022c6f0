#include "precis/train/training_run.h"

#include <cmath>
#include <fstream>
#include <iterator>

#include "precis/core/atomic_file.h"
#include "precis/kernels/elementwise.h"
#include "precis/model/families.h"
#include "precis/train/results_files.h"

namespace precis::train {

namespace fs = std::filesystem;

namespace {

// generation_config.json as save_pretrained writes it: the source checkpoint's (or
// --generation_config's) bytes, or the one GenerationConfig.from_model_config derives.
template <class Config>
void write_generation_config(const fs::path& dir, const TrainingArguments& args,
                             const Config& config) {
  fs::path source = args.generation_config
                        ? generation_config_file(*args.generation_config)
                        : fs::path(args.model_name_or_path) / "generation_config.json";
  if (args.generation_config || (!args.model_name_or_path.empty() && fs::exists(source))) {
    std::ifstream in(source, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    write_file_atomic(dir / "generation_config.json", bytes);
    return;
  }
  write_file_atomic(dir / "generation_config.json",
                    default_generation_config(config).dump(2) + "\n");
}

}  // namespace

AdamWSettings adamw_settings(const TrainingArguments& a) {
  return {a.learning_rate, a.adam_beta1, a.adam_beta2, a.adam_epsilon, a.weight_decay};
}

template <class Model>
TrainingRun<Model>::TrainingRun(const TrainingArguments& a, dist::Communicator& c,
                                LoadedModel<Model> loaded)
    : args(a),
      comm(c),
      model(std::move(loaded.model)),
      tokenizer(std::move(loaded.tokenizer)),
      grad_arena(parameter_bytes(model.config)),
      collator{model.config.pad_token_id, model.config.decoder_start_token_id, 1,
               model.config.vocab_size} {
  allocate_parameters(model.config, grads, grad_arena);
  // The CPU computes in fp32 (run_job says so under --bf16); a GPU in the 16-bit type.
  if ((a.bf16 || a.fp16) && !current_device().is_cpu()) {
    compute = std::make_unique<ComputeCopy<Config>>(model.config, model.params,
                                                    a.bf16 ? DType::BF16 : DType::F16);
    refresh_compute();
  }
  if (a.fp16) scaler.emplace();
  const AdamWSettings settings = adamw_settings(a);
  if (a.zero_stage == 1)
    sharded = std::make_unique<ShardedAdamW<Config>>(model.config, settings, model.params, comm);
  else
    optimizer = std::make_unique<AdamW<Config>>(model.config, settings);
}

template <class Model>
void TrainingRun<Model>::refresh_compute() {
  if (!compute) return;
  compute->refresh(model.params);
  compute_params = compute->mixed(model.params);
}

template <class Model>
size_t TrainingRun<Model>::optimizer_state_bytes() const {
  return sharded ? sharded->state_bytes() : optimizer->state_bytes();
}

template <class Model>
void TrainingRun<Model>::save_model(const fs::path& dir) const {
  model.save(dir);
  write_generation_config(dir, args, model.config);
  tokenizer->save(dir);
  write_results_file(dir / "training_args.json", to_json(args));
}

template <class Model>
OptimizerStepResult TrainingRun<Model>::optimizer_step(double lr,
                                                       dist::GradientAllReduce* grad_sync,
                                                       const Tensor& norm_squared) {
  OptimizerStepResult result;
  if (sharded) {
    // On a GPU the norm stays there, read back with the loss (the step's one read).
    if (norm_squared.device.is_cpu()) {
      result.grad_norm = sharded->step(model.params, grads, lr, args.max_grad_norm);
    } else {
      sharded->step(model.params, grads, lr, args.max_grad_norm, norm_squared);
      result.norm_on_device = true;
    }
    zero_grads(model.config, grads);
    refresh_compute();
    return result;
  }
  if (grad_sync) result.exposed_allreduce = grad_sync->finish();
  // GradScaler.unscale_ before clipping; the norm then tells an inf or NaN anywhere.
  if (scaler) scale_in_place(flat_tensor(model.config, grads), scaler->inverse_scale());
  // The compute copy's flat range refreshed by the update itself; its buffers after.
  optimizer->clipped_step(model.params, grads, lr, args.max_grad_norm,
                          /*skip_if_not_finite=*/scaler.has_value(), norm_squared,
                          compute ? compute->flat() : Tensor{});
  result.norm_on_device = true;
  if (compute) compute->refresh_buffers(model.params);
  return result;
}

template <class Model>
void TrainingRun<Model>::norm_read(double grad_norm) {
  if (!scaler) return;  // (ZeRO-1 refuses --fp16: trainer.cpp)
  const bool finite = std::isfinite(grad_norm);
  scaler->update(finite);
  if (!finite) optimizer->step_skipped();
}

#define PRECIS_INSTANTIATE(Model, Config, family) template struct TrainingRun<Model>;
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::train
