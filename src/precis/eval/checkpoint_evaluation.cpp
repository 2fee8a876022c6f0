#include "precis/eval/checkpoint_evaluation.h"

#include <cmath>
#include <filesystem>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/data/dataset.h"
#include "precis/eval/generation_evaluation.h"
#include "precis/eval/loss_evaluation.h"
#include "precis/generate/generate.h"
#include "precis/generate/generation_config.h"
#include "precis/model/families.h"
#include "precis/tokenize/text_tokenizer.h"

namespace precis::eval {

namespace {

double round_to(double v, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

// Model: a family's (config.json's model_type decides).
template <class Model>
nlohmann::json evaluate_with(const EvaluationOptions& o) {
  Model model = Model::load(o.model);
  auto text_tokenizer = tokenize::load_text_tokenizer(o.model);
  const tokenize::TextTokenizer& tokenizer = *text_tokenizer;
  data::ReadOptions read = data::columns_for("", o.text_column, o.summary_column);
  if (o.max_eval_samples) read.max_samples = o.max_eval_samples;
  data::Dataset dataset = data::read_dataset(o.data, read);
  auto examples = data::preprocess(
      dataset.records, tokenizer,
      {o.source_prefix, o.max_source_length, size_t(o.lengths.eval_labels()), o.pad_to_max_length});
  data::CollatorOptions collator{model.config.pad_token_id, model.config.decoder_start_token_id, 1};
  const int64_t batch_size = o.per_device_eval_batch_size;
  nlohmann::json out;
  double runtime = 0;
  int64_t samples = 0, steps = 0;
  std::vector<std::string> predictions;
  if (o.predict_with_generate) {
    // As Seq2SeqTrainer.evaluate with predict_with_generate: the checkpoint's generation
    // config, max_length and num_beams overridable.
    generate::GenerationConfig generation =
        generate::GenerationConfig::from_model_directory(o.model, special_tokens(model.config));
    generation.max_length = o.lengths.generation().value_or(o.lengths.eval_labels());
    if (o.num_beams > 0) generation.num_beams = o.num_beams;
    GenerationEvaluation r = evaluate_with_generation(model, tokenizer, examples, batch_size,
                                                      collator, generation, o.seed);
    out = r.scores.metrics("eval");
    out["eval_loss"] = r.loss;
    runtime = r.runtime_s, samples = r.samples, steps = r.steps;
    predictions = r.scores.predictions;
  } else {
    LossEvaluation r = evaluate_loss(model, examples, batch_size, collator);
    out["eval_loss"] = r.eval_loss;
    runtime = r.runtime_s, samples = r.samples, steps = r.steps;
  }
  // Trainer rounds runtime to 4 digits and the rates to 3 (speed_metrics).
  out["eval_samples"] = samples;
  out["eval_runtime"] = round_to(runtime, 4);
  out["eval_samples_per_second"] = round_to(double(samples) / runtime, 3);
  out["eval_steps_per_second"] = round_to(double(steps) / runtime, 3);
  if (!o.output_dir.empty()) {
    std::filesystem::create_directories(o.output_dir);
    write_file_atomic(std::filesystem::path(o.output_dir) / "eval_results.json",
                      out.dump(4) + "\n");
    if (o.predict_with_generate) {
      std::string text;
      for (size_t i = 0; i < predictions.size(); ++i) text += (i ? "\n" : "") + predictions[i];
      write_file_atomic(std::filesystem::path(o.output_dir) / "generated_predictions.txt", text);
    }
  }
  return out;
}

}  // namespace

nlohmann::json evaluate_checkpoint(const EvaluationOptions& o) {
  if (!o.dataset_name.empty()) data::throw_dataset_name_unsupported(o.dataset_name);
  // The command line checks these as it parses; the Python package's values arrive unchecked.
  check(o.per_device_eval_batch_size > 0, "per_device_eval_batch_size must be positive, found " +
                                              std::to_string(o.per_device_eval_batch_size));
  for (const auto& [name, value] : {std::pair{"max_target_length", o.lengths.max_target_length},
                                    {"val_max_target_length", o.lengths.val_max_target_length},
                                    {"generation_max_length", o.lengths.generation_max_length}})
    check(!value || *value > 0,
          std::string(name) + " must be positive, found " + std::to_string(value.value_or(0)));
  return with_model_family(
      checkpoint_model_type(o.model), o.model,
      [&]<class Model>(std::type_identity<Model>) { return evaluate_with<Model>(o); });
}

}  // namespace precis::eval
