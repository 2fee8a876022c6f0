// The options of `precis train`: run_summarization.py's ModelArguments and
// DataTrainingArguments plus Seq2SeqTrainingArguments (transformers 4.44), under the same
// snake_case names and with the same defaults, so a SageMaker / run_summarization
// `hyperparameters` dict pasted into a JSON file means the same job here.
//
// One parser serves the config file (`--config job.json|job.yaml`) and the command line
// (`--name value`, `--name=value`, bare `--flag` for booleans); the command line wins.
// Values may be JSON/YAML types or strings ("5e-5", "True", "3"), as SageMaker passes every
// hyperparameter as a string.
//
// Hugging Face options that precis accepts but does not act on (dataloader_num_workers,
// report_to, push_to_hub, tf32, ...) are kept by name in `ignored_options`; the CLI prints
// ignored_options_warning() once. HF's Optional[...] fields are std::optional here, so
// to_json() writes null exactly where HF's TrainingArguments.to_dict() does.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "precis/core/hf_semantics.h"

namespace precis::train {

class TrainerCallback;  // trainer_callback.h

// transformers.trainer_utils.IntervalStrategy
enum class IntervalStrategy { kNo, kSteps, kEpoch };
// transformers.trainer_utils.SchedulerType, the ones precis implements.
enum class SchedulerType { kLinear, kCosine, kConstant, kConstantWithWarmup };

struct TrainingArguments {
  // ---- ModelArguments (run_summarization.py) ----
  std::string model_name_or_path;          // required: a local HF checkpoint directory
  std::optional<std::string> config_name;  // config.json path/dir, or a precis preset name
  std::optional<std::string> tokenizer_name;
  std::string model_revision = "main";  // only "main" makes sense for a local directory
  std::optional<bool> resize_position_embeddings;

  // ---- DataTrainingArguments (run_summarization.py) ----
  std::optional<std::string> lang;
  std::optional<std::string> dataset_name;  // refused by the parser: no downloads offline
  std::optional<std::string> dataset_config_name;
  std::optional<std::string> text_column;     // unset: the dataset mapping, then "dialogue"
  std::optional<std::string> summary_column;  // unset: the dataset mapping, then "summary"
  std::optional<std::string> train_file;
  std::optional<std::string> validation_file;
  std::optional<std::string> test_file;
  int64_t max_source_length = 1024;
  int64_t max_target_length = 128;
  int64_t val_max_target_length = 128;  // HF: None -> max_target_length (resolved by the parser)
  bool pad_to_max_length = false;
  std::optional<int64_t> max_train_samples;
  std::optional<int64_t> max_eval_samples;
  std::optional<int64_t> max_predict_samples;
  std::optional<int64_t> num_beams = 1;  // run_summarization: overrides generation_num_beams
  bool ignore_pad_token_for_loss = true;
  std::optional<std::string> source_prefix;
  std::optional<std::string> forced_bos_token;

  // ---- Seq2SeqTrainingArguments ----
  std::string output_dir;  // required when do_train
  bool overwrite_output_dir = false;
  bool do_train = false;
  bool do_eval = false;  // HF: set true when eval_strategy != no
  bool do_predict = false;
  IntervalStrategy eval_strategy = IntervalStrategy::kNo;  // alias: evaluation_strategy
  bool prediction_loss_only = false;
  int64_t per_device_train_batch_size = 8;
  int64_t per_device_eval_batch_size = 8;
  int64_t gradient_accumulation_steps = 1;
  std::optional<int64_t> eval_accumulation_steps;
  double eval_delay = 0;
  double learning_rate = 5e-5;
  double weight_decay = 0.0;
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.999;
  double adam_epsilon = 1e-8;
  double max_grad_norm = 1.0;
  double num_train_epochs = 3.0;
  int64_t max_steps = -1;
  SchedulerType lr_scheduler_type = SchedulerType::kLinear;
  double warmup_ratio = 0.0;
  int64_t warmup_steps = 0;
  std::optional<std::string> logging_dir;  // HF: output_dir/runs/<date>_<host> when unset
  IntervalStrategy logging_strategy = IntervalStrategy::kSteps;
  bool logging_first_step = false;
  double logging_steps = 500;  // < 1: a ratio of total steps (see interval_steps())
  bool logging_nan_inf_filter = true;
  IntervalStrategy save_strategy = IntervalStrategy::kSteps;
  double save_steps = 500;  // < 1: a ratio of total steps
  std::optional<int64_t> save_total_limit;
  bool save_safetensors = true;
  bool save_only_model = false;
  int64_t seed = 42;
  std::optional<int64_t> data_seed;
  bool bf16 = false;
  bool fp16 = false;
  bool dataloader_drop_last = false;
  // HF: None -> logging_steps when eval_strategy is steps (resolved by the parser); < 1: ratio
  std::optional<double> eval_steps;
  std::optional<std::string> run_name;  // HF: output_dir when unset (resolved by the parser)
  bool remove_unused_columns = true;
  bool load_best_model_at_end = false;
  std::optional<std::string> metric_for_best_model;  // HF: "loss" when load_best_model_at_end
  std::optional<bool> greater_is_better;  // HF: !metric.endswith("loss") when a metric is set
  bool ignore_data_skip = false;
  double label_smoothing_factor = 0.0;
  std::string optim = "adamw_torch";  // adamw_torch, adamw_torch_fused, adamw_hf (AdamW math)
  bool group_by_length = false;
  std::string length_column_name = "length";
  std::optional<std::string> resume_from_checkpoint;
  std::optional<std::string>
      hub_model_id;  // used by the model card; publishing is `precis publish`
  std::optional<std::string> hub_token;
  bool hub_private_repo = false;
  bool gradient_checkpointing = false;
  std::optional<int64_t> ddp_timeout = 1800;  // seconds
  std::optional<int64_t> ddp_bucket_cap_mb;   // MiB per gradient bucket (null: DDP's 25)
  bool include_tokens_per_second = false;
  bool include_num_input_tokens_seen = false;
  bool eval_on_start = false;
  bool sortish_sampler = false;
  bool predict_with_generate = false;
  // run_summarization: unset -> val_max_target_length; num_beams (when set) overrides
  // generation_num_beams. The parser applies both, so these are what evaluation uses.
  std::optional<int64_t> generation_max_length;
  std::optional<int64_t> generation_num_beams;
  // Seq2SeqTrainingArguments.generation_config: a generation_config.json file or a directory
  // with one; replaces the model's generation config (and is saved with the model).
  std::optional<std::string> generation_config;

  // ---- precis's own ----
  int64_t max_tokens_per_batch = 0;  // > 0: token-budget batches instead of fixed batch sizes
  std::string device = "auto";       // auto (CUDA if present), cpu, cuda
  int64_t zero_stage = 0;            // 0 or 1 (optimizer state sharded across ranks)
  bool skip_bad_records = false;     // skip malformed dataset records instead of failing
  double price_per_hour = 0;         // cost of the job's machines per hour, for reports; 0: none
  double max_train_time_s = 0;       // > 0: stop training (and save) after this wall time
  int64_t max_record_bytes = int64_t{16} << 20;  // longer dataset records are refused unread
  bool save_on_interrupt = false;  // SIGTERM / SIGINT: save a checkpoint at the step's end, exit 0
  // Where checkpoint-N/ folders go and a rerun looks for them (unset: output_dir). SageMaker
  // sets it to checkpointconfig.json's LocalPath, so that checkpoints stay out of the model
  // directory it tars and sit where a restarted spot job finds them.
  std::optional<std::string> checkpoint_dir;
  // Ranks per host when precis itself starts mpirun (SageMaker, docs/sagemaker.md); 0: one
  // per GPU, or one on a host without GPUs.
  int64_t ranks_per_host = 0;
  // The transformers release whose behaviour the run follows where releases differ: "5" or
  // "4.44" (core/hf_semantics.h; default: PRECIS_HF_SEMANTICS, else 5).
  std::string hf_semantics = std::string(hf_semantics_name(precis::hf_semantics()));

  // HF options given that precis accepts and ignores, with the values given (JSON as read).
  std::map<std::string, nlohmann::json> ignored_options;
  // This host's name, for the job summary's host count and TensorBoard's file and folder
  // names; "": gethostname(). Not an option: a platform sets it (SageMaker: resourceconfig.json's
  // current_host, as the other hosts know this one).
  std::string host_name;
  // Settings that parse but probably do not do what the user meant.
  std::vector<std::string> warnings;

  // ---- set by a program that embeds precis (the Python package), never by an option ----
  // Rank 0's reporter of that program (its log callback, progress bar and Ctrl-C check):
  // make_reporters makes it for the run's first and total steps and calls it after precis's own.
  std::function<std::unique_ptr<TrainerCallback>(int64_t first_step, int64_t total_steps)>
      embedder_reporter;
};

// Thrown by parse_training_arguments for --help / -h; what() is training_arguments_help().
// The CLI prints it and exits 0.
class HelpRequested : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the arguments after `precis train`. Throws precis::Error with an actionable message
// (unknown option with a suggestion, bad value naming the option and file, HF's own
// validation messages). Resolves HF's derived defaults (val_max_target_length, eval_steps,
// do_eval, run_name, metric_for_best_model, greater_is_better, generation_*).
TrainingArguments parse_training_arguments(const std::vector<std::string>& argv_after_subcommand);

// The same parser over a JSON object of settings, {"name": value, ...}, as a config file holds
// them: the Python package's keyword arguments, or a transformers TrainingArguments.to_dict().
// `origin` names them in messages ("precis.Seq2SeqTrainingArguments: unknown option ...").
TrainingArguments parse_training_arguments(const nlohmann::json& settings, const std::string& origin);

// Settings a platform supplies besides the command line (SageMaker's hyperparameters.json;
// src/precis/platform/). Precedence, lowest first: the --config file (from the command line,
// else a `config` hyperparameter), the hyperparameters, the command line; then `defaults`
// fill the options that none of them set (SageMaker's output and checkpoint folders, its
// channels). Names and values as in a config file; `source` locates them in messages.
struct PlatformSettings {
  std::string source;  // "/opt/ml/input/config/hyperparameters.json"
  std::vector<std::pair<std::string, nlohmann::json>> hyperparameters;
  std::vector<std::pair<std::string, nlohmann::json>> defaults;
  std::string defaults_source = "platform default";
};
TrainingArguments parse_training_arguments(const std::vector<std::string>& argv_after_subcommand,
                                           const PlatformSettings& platform);

// The checks that need more than the options, made as the job starts (the parser also serves
// --help, to_json and tests, which name no model): a model to start from, and a tokenizer for
// a new one; --fp16, which a family may refuse (T5's ModelFamily::fp16_refusal), as the CPU
// backend does. model_type is the family's (model/families.h). Throws precis::Error as the parser
// does. Both live in training_arguments_validation.cpp.
void validate_job(const TrainingArguments& args, const std::string& model_type);

// The parser's warnings, one per line, then "precis ignores these Hugging Face options: a, b,
// c"; "" when there is nothing to say.
std::string ignored_options_warning(const TrainingArguments& args);

// Every option with its value (ignored HF options with the value given or HF's default),
// for training_args.json and the model card's hyperparameters.
nlohmann::json to_json(const TrainingArguments& args);

// `precis train --help`: every option, its default and its help text.
std::string training_arguments_help();

// Names as HF writes them ("steps", "cosine", ...).
std::string to_string(IntervalStrategy strategy);
std::string to_string(SchedulerType type);

// logging_steps / eval_steps / save_steps as the Trainer uses them: a value < 1 is a ratio
// of max_steps, ceil(max_steps * value); otherwise the value itself.
int64_t interval_steps(double steps, int64_t max_steps);

}  // namespace precis::train
