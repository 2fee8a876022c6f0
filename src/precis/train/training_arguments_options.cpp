// The option table of `precis train`: every field of TrainingArguments under its Hugging Face
// name, with its group and help text, and the HF options accepted and ignored with the value
// HF holds by default. --help and training_args.json are both this table written out.
#include <sstream>

#include "precis/train/training_arguments_parsing.h"

namespace precis::train {
namespace parsing {

const std::vector<Option>& options() {
  static const std::vector<Option> table = {
      // ModelArguments
      {"model_name_or_path", &Args::model_name_or_path, Group::kModel,
       "Model to fine-tune: a local Hugging Face checkpoint directory (required)"},
      {"config_name", &Args::config_name, Group::kModel,
       "Model config (config.json or its directory, or a precis preset) if not the model's own"},
      {"tokenizer_name", &Args::tokenizer_name, Group::kModel,
       "Tokenizer directory if not the model's own"},
      {"model_revision", &Args::model_revision, Group::kModel,
       "Model version (branch, tag or commit); only \"main\" for a local directory"},
      {"resize_position_embeddings", &Args::resize_position_embeddings, Group::kModel,
       "Resize the position embeddings when max_source_length exceeds them"},
      // DataTrainingArguments
      {"lang", &Args::lang, Group::kData,
       "Language id for summarization (multilingual tokenizers)"},
      {"dataset_name", &Args::dataset_name, Group::kData,
       "Hub dataset name: not downloadable offline, use --train_file etc. instead"},
      {"dataset_config_name", &Args::dataset_config_name, Group::kData,
       "Configuration name of the Hub dataset"},
      {"text_column", &Args::text_column, Group::kData,
       "Column with the full texts (default: the known dataset's, else \"dialogue\")"},
      {"summary_column", &Args::summary_column, Group::kData,
       "Column with the summaries (default: the known dataset's, else \"summary\")"},
      {"train_file", &Args::train_file, Group::kData,
       "Training data file (.json, .jsonl, .csv or .tsv)"},
      {"validation_file", &Args::validation_file, Group::kData,
       "Evaluation data file for loss and ROUGE (.json, .jsonl, .csv or .tsv)"},
      {"test_file", &Args::test_file, Group::kData,
       "Prediction data file (.json, .jsonl, .csv or .tsv)"},
      {"max_source_length", &Args::max_source_length, Group::kData,
       "Maximum input length in tokens after tokenization; longer inputs are truncated"},
      {"max_target_length", &Args::max_target_length, Group::kData,
       "Maximum training summary length in tokens; longer summaries are truncated"},
      {"val_max_target_length", &Args::val_max_target_length, Group::kData,
       "Maximum evaluation summary length; also generate()'s max_length in evaluation and "
       "prediction (default: max_target_length)"},
      {"pad_to_max_length", &Args::pad_to_max_length, Group::kData,
       "Pad every sample to the maximum lengths instead of to the longest in the batch"},
      {"max_train_samples", &Args::max_train_samples, Group::kData,
       "Use only the first N training examples"},
      {"max_eval_samples", &Args::max_eval_samples, Group::kData,
       "Use only the first N evaluation examples"},
      {"max_predict_samples", &Args::max_predict_samples, Group::kData,
       "Use only the first N prediction examples"},
      {"num_beams", &Args::num_beams, Group::kData,
       "Beams for generate() in evaluation and prediction (overrides generation_num_beams)"},
      {"ignore_pad_token_for_loss", &Args::ignore_pad_token_for_loss, Group::kData,
       "Ignore padded label tokens in the loss"},
      {"source_prefix", &Args::source_prefix, Group::kData,
       "Prefix put before every source text (T5: \"summarize: \")"},
      {"forced_bos_token", &Args::forced_bos_token, Group::kData,
       "Token forced as the first generated token (multilingual models such as mBART)"},
      // Seq2SeqTrainingArguments
      {"output_dir", &Args::output_dir, Group::kTraining,
       "Where checkpoints, the model and the results files are written"},
      {"overwrite_output_dir", &Args::overwrite_output_dir, Group::kTraining,
       "Overwrite the output directory's content instead of resuming from its last checkpoint"},
      {"do_train", &Args::do_train, Group::kTraining, "Run training"},
      {"do_eval", &Args::do_eval, Group::kTraining, "Evaluate on the validation file"},
      {"do_predict", &Args::do_predict, Group::kTraining, "Predict on the test file"},
      {"eval_strategy", &Args::eval_strategy, Group::kTraining,
       "When to evaluate during training: no, steps (every eval_steps) or epoch"},
      {"prediction_loss_only", &Args::prediction_loss_only, Group::kTraining,
       "In evaluation and prediction, only return the loss"},
      {"per_device_train_batch_size", &Args::per_device_train_batch_size, Group::kTraining,
       "Training batch size per device (rank)"},
      {"per_device_eval_batch_size", &Args::per_device_eval_batch_size, Group::kTraining,
       "Evaluation batch size per device (rank)"},
      {"gradient_accumulation_steps", &Args::gradient_accumulation_steps, Group::kTraining,
       "Micro-batches whose gradients are accumulated before each update"},
      {"eval_accumulation_steps", &Args::eval_accumulation_steps, Group::kTraining,
       "Prediction steps accumulated before moving results to the host"},
      {"eval_delay", &Args::eval_delay, Group::kTraining,
       "Epochs or steps to wait before the first evaluation, per eval_strategy"},
      {"learning_rate", &Args::learning_rate, Group::kTraining, "Initial learning rate of AdamW"},
      {"weight_decay", &Args::weight_decay, Group::kTraining,
       "AdamW weight decay (not applied to biases and LayerNorm weights)"},
      {"adam_beta1", &Args::adam_beta1, Group::kTraining, "AdamW beta1"},
      {"adam_beta2", &Args::adam_beta2, Group::kTraining, "AdamW beta2"},
      {"adam_epsilon", &Args::adam_epsilon, Group::kTraining, "AdamW epsilon"},
      {"max_grad_norm", &Args::max_grad_norm, Group::kTraining,
       "Clip the gradients' global norm to this (0: no clipping)"},
      {"num_train_epochs", &Args::num_train_epochs, Group::kTraining,
       "Training epochs (may be fractional)"},
      {"max_steps", &Args::max_steps, Group::kTraining,
       "If > 0: total optimizer updates, overriding num_train_epochs"},
      {"lr_scheduler_type", &Args::lr_scheduler_type, Group::kTraining,
       "Learning-rate schedule: linear, cosine, constant or constant_with_warmup"},
      {"warmup_ratio", &Args::warmup_ratio, Group::kTraining,
       "Linear warmup over this fraction of the total updates"},
      {"warmup_steps", &Args::warmup_steps, Group::kTraining,
       "Linear warmup over this many updates (overrides warmup_ratio)"},
      {"logging_dir", &Args::logging_dir, Group::kTraining,
       "Log directory (default: output_dir/runs/DATE_HOST)"},
      {"logging_strategy", &Args::logging_strategy, Group::kTraining,
       "When to log: no, steps (every logging_steps) or epoch"},
      {"logging_first_step", &Args::logging_first_step, Group::kTraining,
       "Log the first update too"},
      {"logging_steps", &Args::logging_steps, Group::kTraining,
       "Log every N updates; below 1, a ratio of the total updates"},
      {"logging_nan_inf_filter", &Args::logging_nan_inf_filter, Group::kTraining,
       "Replace nan/inf losses by the running average in the logged loss"},
      {"save_strategy", &Args::save_strategy, Group::kTraining,
       "When to save checkpoints: no, steps (every save_steps) or epoch"},
      {"save_steps", &Args::save_steps, Group::kTraining,
       "Save a checkpoint every N updates; below 1, a ratio of the total updates"},
      {"save_total_limit", &Args::save_total_limit, Group::kTraining,
       "Keep at most N checkpoints in output_dir, deleting the oldest (the best is kept)"},
      {"save_safetensors", &Args::save_safetensors, Group::kTraining,
       "Save weights as safetensors"},
      {"save_only_model", &Args::save_only_model, Group::kTraining,
       "Checkpoints hold the model only (no optimizer, scheduler or RNG state: no resume)"},
      {"seed", &Args::seed, Group::kTraining, "Random seed set at the start of training"},
      {"data_seed", &Args::data_seed, Group::kTraining,
       "Seed of the data samplers (default: seed)"},
      {"bf16", &Args::bf16, Group::kTraining, "Mixed-precision training in bf16"},
      {"fp16", &Args::fp16, Group::kTraining, "Mixed-precision training in fp16 (CUDA only)"},
      {"dataloader_drop_last", &Args::dataloader_drop_last, Group::kTraining,
       "Drop the last incomplete training batch"},
      {"eval_steps", &Args::eval_steps, Group::kTraining,
       "Evaluate every N updates (default: logging_steps); below 1, a ratio of the total"},
      {"run_name", &Args::run_name, Group::kTraining,
       "Name of the run in logs (default: output_dir)"},
      {"remove_unused_columns", &Args::remove_unused_columns, Group::kTraining,
       "Drop dataset columns the model does not use"},
      {"load_best_model_at_end", &Args::load_best_model_at_end, Group::kTraining,
       "Load the best checkpoint (per metric_for_best_model) at the end of training"},
      {"metric_for_best_model", &Args::metric_for_best_model, Group::kTraining,
       "Metric comparing checkpoints, e.g. loss or rouge1 (default with load_best_model_at_end: "
       "loss)"},
      {"greater_is_better", &Args::greater_is_better, Group::kTraining,
       "Whether a larger metric_for_best_model is better (default: unless it ends in \"loss\")"},
      {"ignore_data_skip", &Args::ignore_data_skip, Group::kTraining,
       "On resume, do not skip the batches already seen in the current epoch"},
      {"label_smoothing_factor", &Args::label_smoothing_factor, Group::kTraining,
       "Label smoothing epsilon (0: none)"},
      {"optim", &Args::optim, Group::kTraining,
       "Optimizer: adamw_torch, adamw_torch_fused or adamw_hf (all AdamW)"},
      {"group_by_length", &Args::group_by_length, Group::kTraining,
       "Batch samples of similar length together (shuffled)"},
      {"length_column_name", &Args::length_column_name, Group::kTraining,
       "Column with precomputed lengths for group_by_length"},
      {"resume_from_checkpoint", &Args::resume_from_checkpoint, Group::kTraining,
       "Checkpoint directory to resume training from"},
      {"hub_model_id", &Args::hub_model_id, Group::kTraining,
       "Hub repository name for the model card (publishing is `precis publish`)"},
      {"hub_token", &Args::hub_token, Group::kTraining, "Hub token (never written out)"},
      {"hub_private_repo", &Args::hub_private_repo, Group::kTraining,
       "Make the Hub repository private"},
      {"gradient_checkpointing", &Args::gradient_checkpointing, Group::kTraining,
       "Recompute activations in the backward pass to save memory"},
      {"ddp_timeout", &Args::ddp_timeout, Group::kTraining,
       "Timeout in seconds of distributed collectives"},
      {"ddp_bucket_cap_mb", &Args::ddp_bucket_cap_mb, Group::kTraining,
       "Largest gradient bucket all-reduced at once, in MiB, as DistributedDataParallel's "
       "bucket_cap_mb (default 25; the first bucket is 1 MiB)"},
      {"include_tokens_per_second", &Args::include_tokens_per_second, Group::kTraining,
       "Report tokens per second in the training metrics"},
      {"include_num_input_tokens_seen", &Args::include_num_input_tokens_seen, Group::kTraining,
       "Track the number of input tokens seen"},
      {"eval_on_start", &Args::eval_on_start, Group::kTraining,
       "Evaluate once before training starts"},
      {"sortish_sampler", &Args::sortish_sampler, Group::kTraining,
       "Use a sortish sampler (legacy)"},
      {"predict_with_generate", &Args::predict_with_generate, Group::kTraining,
       "Generate summaries in evaluation and prediction to compute ROUGE"},
      {"generation_max_length", &Args::generation_max_length, Group::kTraining,
       "The max_length of generate() in evaluation and prediction (default: "
       "val_max_target_length)"},
      {"generation_num_beams", &Args::generation_num_beams, Group::kTraining,
       "The num_beams of generate() in evaluation and prediction (num_beams overrides it)"},
      {"generation_config", &Args::generation_config, Group::kTraining,
       "A generation_config.json (or a directory holding one) used in evaluation and prediction, "
       "and saved with the model"},
      // precis's own
      {"max_tokens_per_batch", &Args::max_tokens_per_batch, Group::kPrecis,
       "If > 0: build training batches by a token budget instead of a fixed batch size"},
      {"device", &Args::device, Group::kPrecis,
       "Where to train: auto (CUDA when present), cpu or cuda"},
      {"hf_semantics", &Args::hf_semantics, Group::kPrecis,
       "The transformers release to follow where releases differ: 5 (5.23) or 4.44 (4.44.2); "
       "docs/hf-semantics.md lists the differences"},
      {"zero_stage", &Args::zero_stage, Group::kPrecis,
       "0, or 1 to shard the optimizer state across ranks (ZeRO-1)"},
      {"skip_bad_records", &Args::skip_bad_records, Group::kPrecis,
       "Skip and count malformed dataset records instead of failing"},
      {"price_per_hour", &Args::price_per_hour, Group::kPrecis,
       "Price of the job's machines per hour, to report the run's cost (0: not reported)"},
      {"max_train_time_s", &Args::max_train_time_s, Group::kPrecis,
       "If > 0: stop training (saving a checkpoint) after this many seconds of wall time"},
      {"max_record_bytes", &Args::max_record_bytes, Group::kPrecis,
       "Refuse (or with skip_bad_records skip) dataset records longer than this many bytes, "
       "unread"},
      {"save_on_interrupt", &Args::save_on_interrupt, Group::kPrecis,
       "On SIGTERM or SIGINT: finish the step, save a checkpoint and exit 0 (a rerun resumes from "
       "it)"},
      {"checkpoint_dir", &Args::checkpoint_dir, Group::kPrecis,
       "Where checkpoint-N folders are written and a rerun resumes from (default: output_dir)"},
      {"ranks_per_host", &Args::ranks_per_host, Group::kPrecis,
       "Ranks per host when precis starts mpirun itself on SageMaker (0: one per GPU, else one)"},
  };
  return table;
}

const std::vector<IgnoredOption>& ignored_options_table() {
  static const std::vector<IgnoredOption> table = {
      // ModelArguments / DataTrainingArguments
      {"cache_dir", Kind::kString, "null"},
      {"use_fast_tokenizer", Kind::kBool, "true"},  // precis's tokenizer is the fast one
      {"token", Kind::kString, "null"},
      {"trust_remote_code", Kind::kBool, "false"},
      {"overwrite_cache", Kind::kBool, "false"},
      {"preprocessing_num_workers", Kind::kInt, "null"},
      // TrainingArguments
      {"per_gpu_train_batch_size", Kind::kInt, "null"},
      {"per_gpu_eval_batch_size", Kind::kInt, "null"},
      {"torch_empty_cache_steps", Kind::kInt, "null"},
      {"log_level", Kind::kString, "\"passive\""},
      {"log_level_replica", Kind::kString, "\"warning\""},
      {"log_on_each_node", Kind::kBool, "true"},
      {"save_on_each_node", Kind::kBool, "false"},
      {"restore_callback_states_from_checkpoint", Kind::kBool, "false"},
      {"no_cuda", Kind::kBool, "false"},  // true -> device cpu
      {"use_cpu", Kind::kBool, "false"},  // true -> device cpu
      {"use_mps_device", Kind::kBool, "false"},
      {"jit_mode_eval", Kind::kBool, "false"},
      {"use_ipex", Kind::kBool, "false"},
      {"fp16_opt_level", Kind::kString, "\"O1\""},
      {"half_precision_backend", Kind::kString, "\"auto\""},
      {"bf16_full_eval", Kind::kBool, "false"},
      {"fp16_full_eval", Kind::kBool, "false"},
      {"tf32", Kind::kBool, "null"},
      {"local_rank", Kind::kInt, "-1"},  // the rank comes from MPI
      {"ddp_backend", Kind::kString, "null"},
      {"tpu_num_cores", Kind::kInt, "null"},
      {"tpu_metrics_debug", Kind::kBool, "false"},
      {"debug", Kind::kAny, "[]"},
      {"dataloader_num_workers", Kind::kInt, "0"},
      {"dataloader_prefetch_factor", Kind::kInt, "2"},
      {"past_index", Kind::kInt, "-1"},
      {"disable_tqdm", Kind::kBool, "false"},
      {"label_names", Kind::kList, "null"},
      {"fsdp", Kind::kAny, "[]"},
      {"fsdp_min_num_params", Kind::kInt, "0"},
      {"fsdp_config", Kind::kAny,
       R"({"min_num_params": 0, "xla": false, "xla_fsdp_v2": false, "xla_fsdp_grad_ckpt": false})"},
      {"fsdp_transformer_layer_cls_to_wrap", Kind::kString, "null"},
      {"accelerator_config", Kind::kAny,
       R"({"split_batches": false, "dispatch_batches": null, "even_batches": true,)"
       R"( "use_seedable_sampler": true, "non_blocking": false,)"
       R"( "gradient_accumulation_kwargs": null})"},
      {"deepspeed", Kind::kAny, "null"},
      {"optim_args", Kind::kString, "null"},
      {"report_to", Kind::kList, "[]"},
      {"ddp_find_unused_parameters", Kind::kBool, "null"},
      {"ddp_broadcast_buffers", Kind::kBool, "null"},
      {"dataloader_pin_memory", Kind::kBool, "true"},
      {"dataloader_persistent_workers", Kind::kBool, "false"},
      {"skip_memory_metrics", Kind::kBool, "true"},
      {"use_legacy_prediction_loop", Kind::kBool, "false"},
      {"push_to_hub", Kind::kBool, "false"},  // publishing is `precis publish`
      {"hub_strategy", Kind::kString, "\"every_save\""},
      {"hub_always_push", Kind::kBool, "false"},
      {"gradient_checkpointing_kwargs", Kind::kAny, "null"},
      {"include_inputs_for_metrics", Kind::kBool, "false"},
      {"eval_do_concat_batches", Kind::kBool, "true"},
      {"fp16_backend", Kind::kString, "\"auto\""},
      {"push_to_hub_model_id", Kind::kString, "null"},
      {"push_to_hub_organization", Kind::kString, "null"},
      {"push_to_hub_token", Kind::kString, "null"},
      {"mp_parameters", Kind::kString, "\"\""},
      {"auto_find_batch_size", Kind::kBool, "false"},
      {"full_determinism", Kind::kBool, "false"},  // precis is deterministic anyway
      {"torchdynamo", Kind::kString, "null"},
      {"ray_scope", Kind::kString, "\"last\""},
      {"torch_compile", Kind::kBool, "false"},
      {"torch_compile_backend", Kind::kString, "null"},
      {"torch_compile_mode", Kind::kString, "null"},
      {"dispatch_batches", Kind::kBool, "null"},
      {"split_batches", Kind::kBool, "null"},
      {"optim_target_modules", Kind::kAny, "null"},
      {"batch_eval_metrics", Kind::kBool, "false"},
      {"eval_use_gather_object", Kind::kBool, "false"},
      // Only in transformers 5 (5.23.0's defaults).
      {"activation_checkpointing", Kind::kAny, "null"},
      {"activation_checkpointing_kwargs", Kind::kAny, "null"},
      {"dataloader_in_order", Kind::kBool, "true"},
      {"dataloader_multiprocessing_context", Kind::kString, "null"},
      {"ddp_static_graph", Kind::kBool, "null"},
      {"enable_jit_checkpoint", Kind::kBool, "false"},
      {"hub_revision", Kind::kString, "null"},
      {"include_for_metrics", Kind::kList, "[]"},
      {"liger_kernel_config", Kind::kAny, "null"},
      {"parallelism_config", Kind::kAny, "null"},
      {"project", Kind::kString, "\"huggingface\""},
      {"trackio_bucket_id", Kind::kString, "null"},
      {"trackio_space_id", Kind::kString, "null"},
      {"trackio_static_space_id", Kind::kString, "null"},
      {"use_cache", Kind::kBool, "false"},
      {"use_liger_kernel", Kind::kBool, "false"},
      // Read by precis (training_arguments_validation.cpp): the loss over all ranks' label
      // tokens (only true), and the sampler ("random", or "group_by_length" as group_by_length).
      {"average_tokens_across_devices", Kind::kBool, "true"},
      {"train_sampling_strategy", Kind::kString, "\"random\""},
      // Accepted only at their defaults: any other value changes the math (checked in
      // training_arguments_validation.cpp).
      {"adafactor", Kind::kBool, "false"},
      {"lr_scheduler_kwargs", Kind::kAny, "{}"},
      {"neftune_noise_alpha", Kind::kFloat, "null"},
  };
  return table;
}

const IgnoredOption* find_ignored(std::string_view name) {
  for (const auto& o : ignored_options_table())
    if (o.name == name) return &o;
  return nullptr;
}

const Option* find_option(std::string_view name) {
  for (const auto& o : options())
    if (o.name == name) return &o;
  return nullptr;
}

bool is_bool_option(const Option& option) {
  return std::holds_alternative<bool Args::*>(option.member) ||
         std::holds_alternative<std::optional<bool> Args::*>(option.member);
}

namespace {

// A field's value as training_args.json holds it (HF's to_dict(): enums by name, None as null).
json member_json(const Args& args, const Member& member) {
  return std::visit(
      [&](auto m) -> json {
        const auto& field = args.*m;
        using Field = std::remove_cvref_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, IntervalStrategy> ||
                      std::is_same_v<Field, SchedulerType>) {
          return to_string(field);
        } else if constexpr (std::is_same_v<Field, std::optional<bool>> ||
                             std::is_same_v<Field, std::optional<int64_t>> ||
                             std::is_same_v<Field, std::optional<double>> ||
                             std::is_same_v<Field, std::optional<std::string>>) {
          return field ? json(*field) : json(nullptr);
        } else {
          return field;
        }
      },
      member);
}

// The default shown by --help ("" for none).
std::string default_text(const Member& member) {
  json v = member_json(Args{}, member);
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>().empty() ? "" : v.get<std::string>();
  if (v.is_number_float()) {
    std::ostringstream out;
    out << v.get<double>();
    return out.str();
  }
  return v.dump();
}

}  // namespace
}  // namespace parsing

nlohmann::json to_json(const TrainingArguments& args) {
  using namespace parsing;
  json out = json::object();
  for (const auto& o : options()) out[std::string(o.name)] = member_json(args, o.member);
  for (const auto& o : ignored_options_table()) {
    auto it = args.ignored_options.find(std::string(o.name));
    out[std::string(o.name)] =
        it != args.ignored_options.end() ? it->second : json::parse(o.hf_default);
  }
  out["evaluation_strategy"] = nullptr;  // HF's deprecated alias, folded into eval_strategy
  // Secrets never reach training_args.json or a model card: HF's to_dict() masks every
  // "*_token" field of TrainingArguments; the model's `token` is masked when set.
  out["hub_token"] = "<HUB_TOKEN>";
  out["push_to_hub_token"] = "<PUSH_TO_HUB_TOKEN>";
  if (!out["token"].is_null()) out["token"] = "<TOKEN>";
  return out;
}

std::string training_arguments_help() {
  using namespace parsing;
  std::ostringstream out;
  out << "Usage: precis train [--config FILE.json|FILE.yaml] [--name value | --name=value | "
         "--flag]...\n"
         "Fine-tune a sequence-to-sequence model as run_summarization.py with "
         "Seq2SeqTrainingArguments does,\nwith the same option names. The command line "
         "overrides the config file. Booleans take true/false\n(or a bare --flag, or "
         "--no_flag); values may be given as strings, as SageMaker passes them.\n";
  const std::pair<Group, const char*> groups[] = {
      {Group::kModel, "Model (run_summarization ModelArguments)"},
      {Group::kData, "Data (run_summarization DataTrainingArguments)"},
      {Group::kTraining, "Training (Seq2SeqTrainingArguments)"},
      {Group::kPrecis, "precis"}};
  for (const auto& [group, title] : groups) {
    out << "\n" << title << ":\n";
    for (const auto& o : options()) {
      if (o.group != group) continue;
      std::string head = "  --" + std::string(o.name);
      out << head;
      if (head.size() < 32)
        out << std::string(32 - head.size(), ' ');
      else
        out << "\n" << std::string(32, ' ');
      out << o.help;
      std::string d = default_text(o.member);
      if (!d.empty()) out << " [default: " << d << "]";
      out << "\n";
    }
  }
  std::vector<std::string> ignored;
  for (const auto& o : ignored_options_table()) ignored.emplace_back(o.name);
  out << "\nAccepted for compatibility with Hugging Face and ignored (adafactor, "
         "lr_scheduler_kwargs,\nneftune_noise_alpha and generation_config only at their "
         "defaults; use_cpu/no_cuda mean --device cpu;\n--evaluation_strategy is "
         "--eval_strategy):\n";
  // The ignored names, wrapped at 100 columns.
  size_t column = 1;
  out << " ";
  for (size_t i = 0; i < ignored.size(); ++i) {
    std::string item = ignored[i] + (i + 1 < ignored.size() ? "," : "");
    if (column + 1 + item.size() > 100) {
      out << "\n ";
      column = 1;
    }
    out << " " << item;
    column += 1 + item.size();
  }
  out << "\n";
  return out.str();
}

}  // namespace precis::train
