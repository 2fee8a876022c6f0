// The Seq2SeqTrainingArguments that transformers 5 removed and precis still accepts: a config
// from the tutorial's era (4.44) keeps working, and its run says once per name what 5 uses
// instead.
#include <string>

#include "precis/train/training_arguments_parsing.h"

namespace precis::train::parsing {
namespace {

struct Removed {
  std::string_view name;
  std::string_view instead;
};

constexpr Removed kRemovedIn5[] = {
    {"evaluation_strategy", "eval_strategy"},
    {"overwrite_output_dir", "none (5 writes into output_dir; precis still reads it)"},
    {"no_cuda", "use_cpu"},
    {"group_by_length", "train_sampling_strategy \"group_by_length\""},
    {"logging_dir", "the TENSORBOARD_LOGGING_DIR environment variable"},
    {"save_safetensors", "none (5 always saves safetensors)"},
    {"warmup_ratio", "warmup_steps below 1 (a fraction of the steps)"},
    {"per_gpu_train_batch_size", "per_device_train_batch_size"},
    {"per_gpu_eval_batch_size", "per_device_eval_batch_size"},
    {"push_to_hub_model_id", "hub_model_id"},
    {"push_to_hub_organization", "hub_model_id \"organization/name\""},
    {"push_to_hub_token", "hub_token"},
    {"include_inputs_for_metrics", "include_for_metrics [\"inputs\"]"},
    {"include_tokens_per_second", "include_num_input_tokens_seen"},
    {"adafactor", "optim \"adafactor\""},
    {"fp16_backend", "none (torch.amp)"},
    {"half_precision_backend", "none (torch.amp)"},
    {"fp16_opt_level", "none (torch.amp)"},
    {"split_batches", "accelerator_config {\"split_batches\": ...}"},
    {"dispatch_batches", "accelerator_config {\"dispatch_batches\": ...}"},
    {"fsdp_min_num_params", "fsdp_config {\"min_num_params\": ...}"},
    {"fsdp_transformer_layer_cls_to_wrap", "fsdp_config {\"transformer_layer_cls_to_wrap\": ...}"},
    {"torchdynamo", "torch_compile_backend"},
    {"use_mps_device", "none (MPS is used where present)"},
    {"use_ipex", "none"},
    {"jit_mode_eval", "none"},
    {"tpu_num_cores", "none"},
    {"tpu_metrics_debug", "none"},
    {"past_index", "none"},
    {"ray_scope", "none"},
    {"mp_parameters", "none"},
    {"use_legacy_prediction_loop", "none"},
};

}  // namespace

void note_era(Args& args, std::string_view name) {
  for (const Removed& r : kRemovedIn5) {
    if (r.name != name) continue;
    std::string note = "--" + std::string(name) +
                       " is a transformers 4.44 argument that 5 removed (precis accepts it); "
                       "5's replacement: " +
                       std::string(r.instead);
    for (const std::string& w : args.warnings)
      if (w == note) return;
    args.warnings.push_back(std::move(note));
    return;
  }
}

}  // namespace precis::train::parsing
