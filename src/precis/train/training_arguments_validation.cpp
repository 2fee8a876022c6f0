// Every check of the options of `precis train`, in one place. validate: HF's derived defaults
// and checks, in TrainingArguments.__post_init__'s order and run_summarization's, then
// precis's own, as the options are parsed, so that a bad job fails before it reads anything.
// validate_job: what needs the model's family too, as the job starts.
#include <cmath>
#include <sstream>

#include "precis/core/error.h"
#include "precis/core/hf_semantics.h"
#include "precis/data/dataset.h"
#include "precis/model/families.h"
#include "precis/train/training_arguments_parsing.h"

namespace precis::train {
namespace parsing {

namespace {

// A step count or ratio as HF's messages print it: 500, not 500.0; 0.25 as is.
std::string format_steps(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(int64_t(v));
  std::ostringstream out;
  out << v;
  return out.str();
}

// run_summarization's DataTrainingArguments.__post_init__ and main().
void resolve_data_arguments(Args& a, const std::set<std::string>& given) {
  if (a.dataset_name) data::throw_dataset_name_unsupported(*a.dataset_name);

  if (!given.count("val_max_target_length")) a.val_max_target_length = a.max_target_length;
  for (const auto* file : {&a.train_file, &a.validation_file, &a.test_file})
    if (*file) data::file_format(**file);  // throws naming the accepted extensions
}

// TrainingArguments.__post_init__, in its order: do_eval from eval_strategy, and the
// evaluation, logging and saving intervals.
void resolve_intervals(Args& a) {
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
}

// TrainingArguments.__post_init__: load_best_model_at_end needs a checkpoint at every
// evaluation, so the save and eval intervals must line up.
void check_best_model_intervals(const Args& a) {
  if (!a.load_best_model_at_end) return;
  if (a.eval_strategy != a.save_strategy)
    throw Error(
        "--load_best_model_at_end requires the save and eval strategy to match, but found "
        "evaluation strategy " +
        to_string(a.eval_strategy) + " and save strategy " + to_string(a.save_strategy));
  if (a.eval_strategy == IntervalStrategy::kSteps && std::fmod(a.save_steps, *a.eval_steps) != 0) {
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

// TrainingArguments.__post_init__'s derived defaults: the best model's metric and its
// direction, the run's name.
void resolve_best_model_defaults(Args& a) {
  if (a.load_best_model_at_end && !a.metric_for_best_model) a.metric_for_best_model = "loss";
  if (!a.greater_is_better && a.metric_for_best_model)
    a.greater_is_better = !a.metric_for_best_model->ends_with("loss");
  if (!a.run_name && !a.output_dir.empty()) a.run_name = a.output_dir;
}

// TrainingArguments.__post_init__: one half-precision mode at most, and a sane warmup.
void check_precision_and_warmup(const Args& a) {
  if (a.fp16 && a.bf16) throw Error("At most one of fp16 and bf16 can be True, but not both");
  if (a.warmup_ratio < 0 || a.warmup_ratio > 1) throw Error("warmup_ratio must lie in range [0,1]");
  if (a.warmup_steps < 0)
    throw Error("warmup_steps must be of type int and must be 0 or a positive integer.");
}

// Options HF accepts that would change the math precis does: refused unless at their
// defaults; use_cpu / no_cuda mean --device cpu.
void refuse_math_changing_options(Args& a) {
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
  if (const json* v = ignored("average_tokens_across_devices"); v && *v == false)
    throw Error(
        "--average_tokens_across_devices false: precis divides the loss by the label "
        "tokens of all ranks (true, transformers 5's default)");
  if (const json* v = ignored("train_sampling_strategy"); v && !v->is_null()) {
    if (*v == "group_by_length") {
      a.group_by_length = true;
    } else if (*v != "random") {
      throw Error(
          "--train_sampling_strategy: precis samples \"random\" or \"group_by_length\", "
          "not " +
          found_text(*v));
    }
  }
  for (const char* cpu_flag : {"use_cpu", "no_cuda"}) {
    if (const json* v = ignored(cpu_flag); v && *v == true) {
      if (a.device == "cuda")
        throw Error("--" + std::string(cpu_flag) + " contradicts --device cuda");
      a.device = "cpu";
    }
  }
}

// Checks of precis's own, where HF would fail later or misbehave.
void check_precis_limits(const Args& a) {
  auto positive = [](int64_t v, const char* name) {
    if (v < 1)
      throw Error(std::string("--") + name + ": expected a positive integer, found " +
                  std::to_string(v));
  };
  parse_hf_semantics(a.hf_semantics, "--hf_semantics");
  positive(a.per_device_train_batch_size, "per_device_train_batch_size");
  positive(a.per_device_eval_batch_size, "per_device_eval_batch_size");
  positive(a.gradient_accumulation_steps, "gradient_accumulation_steps");
  positive(a.max_source_length, "max_source_length");
  positive(a.max_target_length, "max_target_length");
  positive(a.val_max_target_length, "val_max_target_length");
  positive(a.max_record_bytes, "max_record_bytes");
  if (a.max_tokens_per_batch < 0)
    throw Error("--max_tokens_per_batch: expected 0 (off) or a positive token budget, found " +
                std::to_string(a.max_tokens_per_batch));
  if (a.ddp_bucket_cap_mb && *a.ddp_bucket_cap_mb < 1)
    throw Error("--ddp_bucket_cap_mb: expected a positive size in MiB, found " +
                std::to_string(*a.ddp_bucket_cap_mb));
  if (a.ranks_per_host < 0)
    throw Error("--ranks_per_host: expected 0 (one per GPU) or a positive count, found " +
                std::to_string(a.ranks_per_host));
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
}

// What the run needs, where run_summarization would stop.
void check_inputs(const Args& a) {
  bool something_to_do = a.do_train || a.do_eval || a.do_predict;
  if (something_to_do) {
    if (a.model_name_or_path.empty() && !a.config_name)
      throw Error(
          "--model_name_or_path is required: the checkpoint directory to start from (or "
          "--config_name "
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
}

// run_summarization overrides the decoding parameters of Seq2SeqTrainer.
void resolve_generation(Args& a, const std::set<std::string>& given) {
  if (!a.generation_max_length) a.generation_max_length = a.val_max_target_length;
  if (given.count("generation_num_beams") && !given.count("num_beams") && a.num_beams &&
      a.generation_num_beams != a.num_beams)
    a.warnings.push_back("generation_num_beams " + std::to_string(*a.generation_num_beams) +
                         " is overridden by num_beams " + std::to_string(*a.num_beams) +
                         " (run_summarization's default): pass --num_beams to set the beams");
  if (a.num_beams) a.generation_num_beams = a.num_beams;
}

}  // namespace

void validate(Args& a, const std::set<std::string>& given) {
  resolve_data_arguments(a, given);
  resolve_intervals(a);
  check_best_model_intervals(a);
  resolve_best_model_defaults(a);
  check_precision_and_warmup(a);
  refuse_math_changing_options(a);
  check_precis_limits(a);
  check_inputs(a);
  resolve_generation(a, given);
}

}  // namespace parsing

void validate_job(const TrainingArguments& a, const std::string& model_type) {
  check(!a.model_name_or_path.empty() || a.config_name,
        "give model_name_or_path (a local Hugging Face checkpoint directory) or config_name (" +
            known_preset_names() + ", or a config.json) to train from scratch");
  with_model_family(model_type, "the model", [&]<class Model>(std::type_identity<Model>) {
    const char* refusal = ModelFamily<decltype(Model::config)>::fp16_refusal;
    if (a.fp16 && refusal) throw Error(std::string("--fp16: ") + refusal);
  });
  check(!a.tokenizer_name.value_or(a.model_name_or_path).empty(),
        "training from config_name needs tokenizer_name (a tokenizer directory)");
}

}  // namespace precis::train
