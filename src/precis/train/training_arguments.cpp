#include "precis/train/training_arguments.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <variant>

#include "precis/core/error.h"
#include "precis/data/dataset.h"

namespace precis::train {
namespace {

using Args = TrainingArguments;
using json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// The option table: every field of TrainingArguments by its HF name.

using Member = std::variant<bool Args::*, int64_t Args::*, double Args::*, std::string Args::*,
                            std::optional<bool> Args::*, std::optional<int64_t> Args::*,
                            std::optional<double> Args::*, std::optional<std::string> Args::*,
                            IntervalStrategy Args::*, SchedulerType Args::*>;

enum class Group { kModel, kData, kTraining, kPrecis };

struct Option {
  std::string_view name;
  Member member;
  Group group;
  std::string_view help;
};

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
      {"bf16", &Args::bf16, Group::kTraining, "bf16 mixed-precision training"},
      {"fp16", &Args::fp16, Group::kTraining, "fp16 mixed-precision training (CUDA only)"},
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
       "generate()'s max_length in evaluation and prediction (default: val_max_target_length)"},
      {"generation_num_beams", &Args::generation_num_beams, Group::kTraining,
       "generate()'s num_beams in evaluation and prediction (num_beams overrides it)"},
      {"generation_config", &Args::generation_config, Group::kTraining,
       "generation_config.json (or a directory holding one) used in evaluation and prediction, "
       "and saved with the model"},
      // precis's own
      {"max_tokens_per_batch", &Args::max_tokens_per_batch, Group::kPrecis,
       "If > 0: build training batches by a token budget instead of a fixed batch size"},
      {"device", &Args::device, Group::kPrecis, "auto (CUDA when present), cpu or cuda"},
      {"zero_stage", &Args::zero_stage, Group::kPrecis,
       "0, or 1 to shard the optimizer state across ranks (ZeRO-1)"},
      {"skip_bad_records", &Args::skip_bad_records, Group::kPrecis,
       "Skip and count malformed dataset records instead of failing"},
      {"price_per_hour", &Args::price_per_hour, Group::kPrecis,
       "Price of the job's machines per hour, to report the run's cost (0: not reported)"},
      {"max_train_time_s", &Args::max_train_time_s, Group::kPrecis,
       "If > 0: stop training (saving a checkpoint) after this many seconds of wall time"},
      {"max_record_bytes", &Args::max_record_bytes, Group::kPrecis,
       "Refuse (or with skip_bad_records skip) dataset records longer than this many bytes, unread"},
      {"save_on_interrupt", &Args::save_on_interrupt, Group::kPrecis,
       "On SIGTERM or SIGINT: finish the step, save a checkpoint and exit 0 (a rerun resumes from it)"},
  };
  return table;
}

// HF options accepted for compatibility. `hf_default` is the value TrainingArguments.to_dict()
// (or run_summarization's dataclasses) hold by default, as JSON text.
enum class Kind { kBool, kInt, kFloat, kString, kList, kAny };

struct IgnoredOption {
  std::string_view name;
  Kind kind;
  std::string_view hf_default;
};

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
      // Accepted only at their defaults: any other value changes the math (checked below).
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

// ---------------------------------------------------------------------------------------------
// Values: JSON types or strings (SageMaker passes every hyperparameter as a string).

// Where a value came from, for messages: "--learning_rate" or "job.json:3: learning_rate".
struct Origin {
  std::string label;
};

std::string found_text(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

[[noreturn]] void bad_value(const Origin& at, const std::string& expected, const json& found) {
  throw Error(at.label + ": expected " + expected + ", found " + found_text(found));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Python's None as SageMaker or a YAML file may spell it, for Optional numbers and booleans.
bool is_none_text(const json& v) {
  if (!v.is_string()) return false;
  std::string s = trim(v.get<std::string>());
  return s.empty() || s == "None" || s == "none" || s == "null" || s == "Null" || s == "NULL" ||
         s == "~";
}

bool to_bool(const json& v, const Origin& at) {
  static const char* kExpected = "true or false";
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer() || v.is_number_unsigned()) {
    auto i = v.get<int64_t>();
    if (i == 0 || i == 1) return i == 1;
  }
  if (v.is_string()) {
    // HfArgumentParser's string_to_bool
    std::string s = lower(trim(v.get<std::string>()));
    if (s == "yes" || s == "true" || s == "t" || s == "y" || s == "1") return true;
    if (s == "no" || s == "false" || s == "f" || s == "n" || s == "0") return false;
  }
  bad_value(at, kExpected, v);
}

int64_t to_int(const json& v, const Origin& at) {
  static const char* kExpected = "an integer";
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u <= uint64_t(INT64_MAX)) return int64_t(u);
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return int64_t(d);
  }
  if (v.is_string()) {
    std::string s = trim(v.get<std::string>());
    const char* b = s.data();
    const char* e = b + s.size();
    if (b != e && *b == '+') ++b;
    int64_t out = 0;
    auto [p, ec] = std::from_chars(b, e, out);
    if (ec == std::errc() && p == e && b != e) return out;
  }
  bad_value(at, kExpected, v);
}

double to_double(const json& v, const Origin& at) {
  static const char* kExpected = "a number";
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    std::string s = trim(v.get<std::string>());
    const char* b = s.data();
    const char* e = b + s.size();
    if (b != e && *b == '+') ++b;
    double out = 0;
    auto [p, ec] = std::from_chars(b, e, out);
    if (ec == std::errc() && p == e && b != e && std::isfinite(out)) return out;
  }
  bad_value(at, kExpected, v);
}

std::string to_text(const json& v, const Origin& at) {
  if (v.is_string()) return v.get<std::string>();
  // A YAML or JSON scalar where text is expected (run_name: 7) reads as its text.
  if (v.is_number() || v.is_boolean()) return v.dump();
  bad_value(at, "a string", v);
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

IntervalStrategy to_interval_strategy(const json& v, const Origin& at) {
  std::string s = v.is_string() ? trim(v.get<std::string>()) : "";
  if (s == "no") return IntervalStrategy::kNo;
  if (s == "steps") return IntervalStrategy::kSteps;
  if (s == "epoch") return IntervalStrategy::kEpoch;
  bad_value(at, "one of no, steps, epoch", v);
}

SchedulerType to_scheduler_type(const json& v, const Origin& at) {
  std::string s = v.is_string() ? trim(v.get<std::string>()) : "";
  if (s == "linear") return SchedulerType::kLinear;
  if (s == "cosine") return SchedulerType::kCosine;
  if (s == "constant") return SchedulerType::kConstant;
  if (s == "constant_with_warmup") return SchedulerType::kConstantWithWarmup;
  static const std::set<std::string> kHfOnly = {"cosine_with_restarts", "polynomial",
                                                "inverse_sqrt",         "reduce_lr_on_plateau",
                                                "cosine_with_min_lr",   "warmup_stable_decay"};
  if (kHfOnly.count(s))
    throw Error(at.label +
                ": precis implements the schedules linear, cosine, constant and "
                "constant_with_warmup, not \"" +
                s + "\"");
  bad_value(at, "one of linear, cosine, constant, constant_with_warmup", v);
}

std::string to_choice(const json& v, const Origin& at, const std::vector<std::string>& choices,
                      std::string_view refusal = {}) {
  std::string s = to_text(v, at);
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  if (!refusal.empty() && v.is_string())
    throw Error(at.label + ": " + std::string(refusal) + ", not \"" + s + "\"");
  bad_value(at, "one of " + join(choices, ", "), v);
}

// Sets one field of `args` from `v`.
void assign(Args& args, const Option& option, const json& v, const Origin& at) {
  std::visit(
      [&](auto member) {
        using Field = std::remove_reference_t<decltype(args.*member)>;
        Field& field = args.*member;
        if constexpr (std::is_same_v<Field, bool>) {
          field = to_bool(v, at);
        } else if constexpr (std::is_same_v<Field, int64_t>) {
          field = to_int(v, at);
        } else if constexpr (std::is_same_v<Field, double>) {
          field = to_double(v, at);
        } else if constexpr (std::is_same_v<Field, std::string>) {
          if (option.name == "optim")
            field =
                to_choice(v, at, {"adamw_torch", "adamw_torch_fused", "adamw_hf"},
                          "precis implements AdamW: adamw_torch, adamw_torch_fused or adamw_hf");
          else if (option.name == "device")
            field = to_choice(v, at, {"auto", "cpu", "cuda"});
          else
            field = to_text(v, at);
        } else if constexpr (std::is_same_v<Field, std::optional<std::string>>) {
          if (v.is_null())
            field.reset();
          else
            field = to_text(v, at);
        } else if constexpr (std::is_same_v<Field, std::optional<bool>>) {
          if (v.is_null() || is_none_text(v))
            field.reset();
          else
            field = to_bool(v, at);
        } else if constexpr (std::is_same_v<Field, std::optional<int64_t>>) {
          if (v.is_null() || is_none_text(v))
            field.reset();
          else
            field = to_int(v, at);
        } else if constexpr (std::is_same_v<Field, std::optional<double>>) {
          if (v.is_null() || is_none_text(v))
            field.reset();
          else
            field = to_double(v, at);
        } else if constexpr (std::is_same_v<Field, IntervalStrategy>) {
          field = to_interval_strategy(v, at);
        } else if constexpr (std::is_same_v<Field, SchedulerType>) {
          field = to_scheduler_type(v, at);
        }
      },
      option.member);
}

bool is_bool_option(const Option& option) {
  return std::holds_alternative<bool Args::*>(option.member) ||
         std::holds_alternative<std::optional<bool> Args::*>(option.member);
}

// An ignored option's value, checked for its type and normalised ("True" -> true).
json normalise_ignored(const IgnoredOption& option, const json& v, const Origin& at) {
  // A list keeps "none" as written: report_to "none" (no integration) is not None ("all").
  bool none = v.is_null() || (option.kind != Kind::kString && option.kind != Kind::kList && is_none_text(v));
  if (none) return nullptr;
  switch (option.kind) {
    case Kind::kBool:
      return to_bool(v, at);
    case Kind::kInt:
      return to_int(v, at);
    case Kind::kFloat:
      return to_double(v, at);
    case Kind::kString:
      return to_text(v, at);
    case Kind::kList:
      if (v.is_array()) return v;
      return json::array({to_text(v, at)});
    case Kind::kAny:
      // HF json.loads() dict-valued options given as a string starting with "{".
      if (v.is_string() && trim(v.get<std::string>()).starts_with("{")) {
        try {
          return json::parse(v.get<std::string>());
        } catch (const json::exception&) {
          bad_value(at, "a JSON object", v);
        }
      }
      return v;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Unknown options: the nearest known name by edit distance.

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string_view> all_names() {
  std::vector<std::string_view> names;
  for (const auto& o : options()) names.push_back(o.name);
  for (const auto& o : ignored_options_table()) names.push_back(o.name);
  names.push_back("evaluation_strategy");
  return names;
}

std::optional<std::string> suggestion(std::string_view unknown) {
  std::string_view best;
  size_t best_distance = SIZE_MAX;
  for (std::string_view name : all_names()) {
    size_t d = edit_distance(unknown, name);
    if (d < best_distance) best_distance = d, best = name;
  }
  // Close enough to be a typo: a third of the name, at least 2 edits.
  if (best_distance <= std::max<size_t>(2, unknown.size() / 3)) return std::string(best);
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Collecting name/value pairs from the config file and the command line, in order.

struct Setting {
  std::string name;  // as written, dashes turned into underscores
  json value;
  Origin origin;
  bool from_file = false;
};

std::string normalise_name(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar: {
      // Plain (unquoted) null spellings are null; everything else stays text and is
      // converted per option type, as a SageMaker string would be.
      const std::string& s = node.Scalar();
      if (node.Tag() == "?" && (s == "~" || s == "null" || s == "Null" || s == "NULL"))
        return nullptr;
      return s;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return out;
    }
  }
  return nullptr;
}

// 1-based line of a top-level `"key":` in JSON text, 0 when not found (nlohmann keeps no
// positions in its DOM).
size_t json_key_line(const std::string& text, const std::string& key) {
  std::string quoted = json(key).dump();
  for (size_t pos = text.find(quoted); pos != std::string::npos; pos = text.find(quoted, pos + 1)) {
    size_t after = pos + quoted.size();
    while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after]))) ++after;
    if (after < text.size() && text[after] == ':')
      return size_t(std::count(text.begin(), text.begin() + long(pos), '\n')) + 1;
  }
  return 0;
}

std::vector<Setting> read_config_file(const std::string& path) {
  std::filesystem::path p(path);
  std::string name = p.filename().string();
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error("--config " + path + ": cannot open the file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  std::string extension = lower(p.extension().string());

  auto located = [&](size_t line) { return line ? path + ":" + std::to_string(line) : path; };
  std::vector<Setting> settings;
  if (extension == ".yaml" || extension == ".yml") {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw Error(located(size_t(e.mark.line + 1)) + ": invalid YAML: " + e.msg);
    }
    if (root.IsNull()) return settings;
    if (!root.IsMap())
      throw Error(path + ": expected a YAML mapping of hyperparameters (name: value)");
    for (const auto& kv : root) {
      if (!kv.first.IsScalar())
        throw Error(located(size_t(kv.first.Mark().line + 1)) + ": expected a name as key");
      std::string key = kv.first.Scalar();
      size_t line = size_t(kv.first.Mark().line + 1);
      settings.push_back({key, yaml_to_json(kv.second), {located(line) + ": " + key}, true});
    }
    return settings;
  }
  if (extension != ".json")
    throw Error("--config " + path + ": expected a .json, .yaml or .yml file");
  if (size_t nul = text.find('\0'); nul != std::string::npos)  // nlohmann would stop there
    throw Error(path + ": invalid JSON: a NUL byte at offset " + std::to_string(nul));
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.what() reads "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    std::string what = e.what();
    size_t at = what.find("] ");
    throw Error(path + ": invalid JSON: " + (at == std::string::npos ? what : what.substr(at + 2)));
  }
  if (!root.is_object())
    throw Error(path + ": expected a JSON object of hyperparameters ({\"name\": value, ...})");
  for (const auto& [key, value] : root.items())
    settings.push_back({key, value, {located(json_key_line(text, key)) + ": " + key}, true});
  return settings;
}

// Splits the command line into settings; the config file's path comes out separately.
std::vector<Setting> read_command_line(const std::vector<std::string>& argv,
                                       std::optional<std::string>& config_path) {
  std::vector<Setting> settings;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& token = argv[i];
    if (token == "--help" || token == "-h") throw HelpRequested(training_arguments_help());
    if (!token.starts_with("--") || token.size() == 2)
      throw Error("unexpected argument \"" + token + "\": options are written --name value");
    std::string body = token.substr(2);
    std::optional<std::string> inline_value;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      inline_value = body.substr(eq + 1);
      body.resize(eq);
    }
    std::string name = normalise_name(body);
    std::string label = "--" + name;
    bool next_is_value = i + 1 < argv.size() && !argv[i + 1].starts_with("--");

    if (name == "config") {
      if (config_path) throw Error("--config given twice");
      if (inline_value)
        config_path = *inline_value;
      else if (i + 1 < argv.size())
        config_path = argv[++i];
      else
        throw Error("--config: expected a file name");
      continue;
    }

    // Booleans: bare --flag is true; --flag VALUE and --flag=VALUE take a value; HF's
    // --no_flag sets false.
    const Option* option = find_option(name);
    const IgnoredOption* ignored = option ? nullptr : find_ignored(name);
    bool is_bool = (option && is_bool_option(*option)) || (ignored && ignored->kind == Kind::kBool);
    if (!option && !ignored && name.starts_with("no_")) {
      std::string positive = name.substr(3);
      const Option* o = find_option(positive);
      const IgnoredOption* g = o ? nullptr : find_ignored(positive);
      if ((o && is_bool_option(*o)) || (g && g->kind == Kind::kBool)) {
        if (inline_value) throw Error(label + ": takes no value");
        settings.push_back({positive, false, {label}, false});
        continue;
      }
    }
    json value;
    if (inline_value) {
      value = *inline_value;
    } else if (is_bool) {
      value = next_is_value ? json(argv[++i]) : json(true);
    } else if (ignored && ignored->kind == Kind::kList) {
      json list = json::array();
      while (i + 1 < argv.size() && !argv[i + 1].starts_with("--")) list.push_back(argv[++i]);
      if (list.empty()) throw Error(label + ": expected one or more values");
      value = list;
    } else if (i + 1 < argv.size()) {
      // A value may start with a single dash (--max_steps -1); one with two needs --name=VALUE.
      if (!next_is_value) throw Error(label + ": expected a value (write --" + name + "=VALUE)");
      value = argv[++i];
    } else {
      throw Error(label + ": expected a value");
    }
    settings.push_back({name, value, {label}, false});
  }
  return settings;
}

// ---------------------------------------------------------------------------------------------
// HF's derived defaults and validation (TrainingArguments.__post_init__, run_summarization).

std::string format_steps(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(int64_t(v));
  std::ostringstream out;
  out << v;
  return out.str();
}

void validate(Args& a, const std::set<std::string>& given) {
  if (a.dataset_name) data::throw_dataset_name_unsupported(*a.dataset_name);

  // run_summarization's DataTrainingArguments.__post_init__ and main()
  if (!given.count("val_max_target_length")) a.val_max_target_length = a.max_target_length;
  for (const auto* file : {&a.train_file, &a.validation_file, &a.test_file})
    if (*file) data::file_format(**file);  // throws naming the accepted extensions

  // TrainingArguments.__post_init__, in its order.
  if (a.do_eval == false && a.eval_strategy != IntervalStrategy::kNo) a.do_eval = true;
  if (a.eval_strategy == IntervalStrategy::kSteps && (!a.eval_steps || *a.eval_steps == 0)) {
    if (a.logging_steps > 0)
      a.eval_steps = a.logging_steps;
    else
      throw Error(
          "evaluation strategy steps requires either non-zero --eval_steps or --logging_steps");
  }
  if (a.logging_strategy == IntervalStrategy::kSteps && a.logging_steps == 0)
    throw Error("logging strategy steps requires non-zero --logging_steps");
  if (a.logging_strategy == IntervalStrategy::kSteps && a.logging_steps > 1 &&
      a.logging_steps != std::floor(a.logging_steps))
    throw Error("--logging_steps must be an integer if bigger than 1: " +
                format_steps(a.logging_steps));
  if (a.eval_strategy == IntervalStrategy::kSteps && *a.eval_steps > 1 &&
      *a.eval_steps != std::floor(*a.eval_steps))
    throw Error("--eval_steps must be an integer if bigger than 1: " + format_steps(*a.eval_steps));
  if (a.save_strategy == IntervalStrategy::kSteps && a.save_steps > 1 &&
      a.save_steps != std::floor(a.save_steps))
    throw Error("--save_steps must be an integer if bigger than 1: " + format_steps(a.save_steps));

  if (a.load_best_model_at_end) {
    if (a.eval_strategy != a.save_strategy)
      throw Error(
          "--load_best_model_at_end requires the save and eval strategy to match, but found "
          "evaluation strategy " +
          to_string(a.eval_strategy) + " and save strategy " + to_string(a.save_strategy));
    if (a.eval_strategy == IntervalStrategy::kSteps &&
        std::fmod(a.save_steps, *a.eval_steps) != 0) {
      double eval = *a.eval_steps, save = a.save_steps;
      if (eval < 1 || save < 1) {
        if (!(eval < 1 && save < 1))
          throw Error(
              "--load_best_model_at_end requires the saving steps to be a multiple of the "
              "evaluation steps, which cannot get guaranteed when mixing ratio and absolute steps "
              "for save_steps " +
              format_steps(save) + " and eval_steps " + format_steps(eval) + ".");
        // HF works around floating-point error by scaling both by 1e6.
        if (std::fmod(save * 1000000, eval * 1000000) != 0)
          throw Error(
              "--load_best_model_at_end requires the saving steps to be a multiple of the "
              "evaluation steps, but found " +
              format_steps(save) + ", which is not a multiple of " + format_steps(eval) + ".");
      }
      throw Error(
          "--load_best_model_at_end requires the saving steps to be a round multiple of the "
          "evaluation steps, but found " +
          format_steps(save) + ", which is not a round multiple of " + format_steps(eval) + ".");
    }
  }
  if (a.load_best_model_at_end && !a.metric_for_best_model) a.metric_for_best_model = "loss";
  if (!a.greater_is_better && a.metric_for_best_model)
    a.greater_is_better = !a.metric_for_best_model->ends_with("loss");
  if (!a.run_name && !a.output_dir.empty()) a.run_name = a.output_dir;
  if (a.fp16 && a.bf16) throw Error("At most one of fp16 and bf16 can be True, but not both");
  if (a.warmup_ratio < 0 || a.warmup_ratio > 1) throw Error("warmup_ratio must lie in range [0,1]");
  if (a.warmup_steps < 0)
    throw Error("warmup_steps must be of type int and must be 0 or a positive integer.");

  // Options HF accepts that would change the math precis does.
  auto ignored = [&](const char* name) -> const json* {
    auto it = a.ignored_options.find(name);
    return it == a.ignored_options.end() ? nullptr : &it->second;
  };
  if (const json* v = ignored("adafactor"); v && *v == true)
    throw Error("--adafactor: precis implements AdamW only (--optim adamw_torch)");
  if (const json* v = ignored("lr_scheduler_kwargs");
      v && !v->is_null() && !(v->is_object() && v->empty()) &&
      !(v->is_string() && trim(v->get<std::string>()).empty()))
    throw Error("--lr_scheduler_kwargs: precis's schedules take no extra arguments, found " +
                found_text(*v));
  if (const json* v = ignored("neftune_noise_alpha"); v && !v->is_null())
    throw Error("--neftune_noise_alpha: NEFTune embedding noise is not implemented in precis");
  for (const char* cpu_flag : {"use_cpu", "no_cuda"}) {
    if (const json* v = ignored(cpu_flag); v && *v == true) {
      if (a.device == "cuda")
        throw Error("--" + std::string(cpu_flag) + " contradicts --device cuda");
      a.device = "cpu";
    }
  }

  // Checks of precis's own, where HF would fail later or misbehave.
  auto positive = [](int64_t v, const char* name) {
    if (v < 1)
      throw Error(std::string("--") + name + ": expected a positive integer, found " +
                  std::to_string(v));
  };
  positive(a.per_device_train_batch_size, "per_device_train_batch_size");
  positive(a.per_device_eval_batch_size, "per_device_eval_batch_size");
  positive(a.gradient_accumulation_steps, "gradient_accumulation_steps");
  positive(a.max_source_length, "max_source_length");
  positive(a.max_target_length, "max_target_length");
  positive(a.val_max_target_length, "val_max_target_length");
  if (a.max_tokens_per_batch < 0)
    throw Error("--max_tokens_per_batch: expected 0 (off) or a positive token budget, found " +
                std::to_string(a.max_tokens_per_batch));
  if (a.ddp_bucket_cap_mb && *a.ddp_bucket_cap_mb < 1)
    throw Error("--ddp_bucket_cap_mb: expected a positive size in MiB, found " +
                std::to_string(*a.ddp_bucket_cap_mb));
  if (a.zero_stage != 0 && a.zero_stage != 1)
    throw Error("--zero_stage: precis implements ZeRO stages 0 and 1, found " +
                std::to_string(a.zero_stage));
  if (a.label_smoothing_factor < 0 || a.label_smoothing_factor >= 1)
    throw Error("--label_smoothing_factor: expected a value in [0, 1), found " +
                format_steps(a.label_smoothing_factor));
  if (a.fp16 && a.device == "cpu")
    throw Error(
        "FP16 Mixed precision training (--fp16) can only be used on CUDA devices; use --bf16 "
        "on the CPU");
  if (a.max_train_time_s < 0 || a.price_per_hour < 0)
    throw Error(std::string(a.max_train_time_s < 0 ? "--max_train_time_s" : "--price_per_hour") +
                ": expected a value >= 0");

  // What the run needs, where run_summarization would stop.
  bool something_to_do = a.do_train || a.do_eval || a.do_predict;
  if (something_to_do) {
    if (a.model_name_or_path.empty() && !a.config_name)
      throw Error(
          "--model_name_or_path is required: the checkpoint directory to start from (or --config_name "
          "with a preset such as bart-small, plus --tokenizer_name, to train from scratch)");
    if (a.output_dir.empty())
      throw Error("--output_dir is required: where checkpoints and results are written");
    if (!a.train_file && !a.validation_file && !a.test_file)
      throw Error("Need either a dataset name or a training, validation, or test file.");
  }
  if (a.do_train && !a.train_file)
    throw Error("--do_train requires a train dataset (--train_file)");
  if (a.do_eval && !a.validation_file)
    throw Error("--do_eval requires a validation dataset (--validation_file)");
  if (a.do_predict && !a.test_file)
    throw Error("--do_predict requires a test dataset (--test_file)");

  // run_summarization overrides the decoding parameters of Seq2SeqTrainer.
  if (!a.generation_max_length) a.generation_max_length = a.val_max_target_length;
  if (given.count("generation_num_beams") && !given.count("num_beams") && a.num_beams &&
      a.generation_num_beams != a.num_beams)
    a.warnings.push_back("generation_num_beams " + std::to_string(*a.generation_num_beams) +
                         " is overridden by num_beams " + std::to_string(*a.num_beams) +
                         " (run_summarization's default): pass --num_beams to set the beams");
  if (a.num_beams) a.generation_num_beams = a.num_beams;
}

void apply(Args& args, const Setting& s, std::set<std::string>& given) {
  std::string name = normalise_name(s.name);
  if (name == "evaluation_strategy") name = "eval_strategy";  // HF's deprecated alias
  if (const Option* option = find_option(name)) {
    assign(args, *option, s.value, s.origin);
    given.insert(name);
    return;
  }
  if (const IgnoredOption* ignored = find_ignored(name)) {
    args.ignored_options[name] = normalise_ignored(*ignored, s.value, s.origin);
    return;
  }
  if (s.from_file && name.starts_with("sagemaker_")) return;  // SageMaker's own bookkeeping
  auto near = suggestion(name);
  if (s.from_file) {
    // s.origin.label is "file:line: key"; keep the location, quote the key.
    std::string where = s.origin.label.substr(0, s.origin.label.size() - s.name.size() - 2);
    throw Error(where + ": unknown option \"" + s.name + "\"" +
                (near ? " (did you mean \"" + *near + "\"?)" : ""));
  }
  throw Error("unknown option --" + name +
              (near ? " (did you mean --" + *near + "?)" : " (see precis train --help)"));
}

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

std::string to_string(IntervalStrategy strategy) {
  switch (strategy) {
    case IntervalStrategy::kNo:
      return "no";
    case IntervalStrategy::kSteps:
      return "steps";
    case IntervalStrategy::kEpoch:
      return "epoch";
  }
  return "no";
}

std::string to_string(SchedulerType type) {
  switch (type) {
    case SchedulerType::kLinear:
      return "linear";
    case SchedulerType::kCosine:
      return "cosine";
    case SchedulerType::kConstant:
      return "constant";
    case SchedulerType::kConstantWithWarmup:
      return "constant_with_warmup";
  }
  return "linear";
}

TrainingArguments parse_training_arguments(const std::vector<std::string>& argv_after_subcommand) {
  std::optional<std::string> config_path;
  std::vector<Setting> command_line = read_command_line(argv_after_subcommand, config_path);
  std::vector<Setting> settings;
  if (config_path) settings = read_config_file(*config_path);
  settings.insert(settings.end(), command_line.begin(), command_line.end());

  TrainingArguments args;
  std::set<std::string> given;
  for (const Setting& s : settings) apply(args, s, given);
  validate(args, given);
  return args;
}

std::string ignored_options_warning(const TrainingArguments& args) {
  std::vector<std::string> names;
  for (const auto& o : ignored_options_table())
    // report_to is honoured for TensorBoard (the trainer reads it); other integrations are not.
    if (args.ignored_options.count(std::string(o.name)) && o.name != std::string_view("report_to"))
      names.emplace_back(o.name);
  std::vector<std::string> lines = args.warnings;
  if (!names.empty()) lines.push_back("precis ignores these Hugging Face options: " + join(names, ", "));
  return join(lines, "\nprecis: warning: ");
}

nlohmann::json to_json(const TrainingArguments& args) {
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

int64_t interval_steps(double steps, int64_t max_steps) {
  if (steps < 1) return int64_t(std::ceil(double(max_steps) * steps));
  return int64_t(steps);
}

}  // namespace precis::train
