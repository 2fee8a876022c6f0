// precis eval: the loss of a checkpoint on a dataset file, as Trainer.evaluate() reports it.
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command.h"
#include "summary_lengths.h"
#include "precis/data/dataset.h"
#include "precis/core/atomic_file.h"
#include "precis/eval/generation_evaluation.h"
#include "precis/eval/loss_evaluation.h"
#include "precis/generate/generate.h"
#include "precis/generate/generation_config.h"
#include "precis/model/common/seq2seq_family.h"
#include "precis/tokenize/text_tokenizer.h"

namespace {

struct EvalOptions {
  std::string model, data, text_column, summary_column, source_prefix, dataset_name;
  size_t max_source_length = 1024;
  precis::cli::SummaryLengths lengths;
  int64_t batch_size = 8;
  size_t max_eval_samples = 0;
  bool pad_to_max_length = false;
  bool predict_with_generate = false;
  int64_t num_beams = 0;
  std::string output_dir;
  uint32_t seed = 42;
};

double round_to(double v, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}


// Model: BartModel or T5Model (config.json's model_type decides).
template <class Model>
void run_with(const EvalOptions& o) {
  using namespace precis;
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
  nlohmann::json out;
  double runtime = 0;
  int64_t samples = 0, steps = 0;
  std::vector<std::string> predictions;
  if (o.predict_with_generate) {
    // As Seq2SeqTrainer.evaluate with predict_with_generate: the checkpoint's generation
    // config, max_length and num_beams overridable.
    generate::GenerationConfig generation = generate::GenerationConfig::from_model_directory(o.model, special_tokens(model.config));
    generation.max_length = o.lengths.generation().value_or(o.lengths.eval_labels());
    if (o.num_beams > 0) generation.num_beams = o.num_beams;
    eval::GenerationEvaluation r =
        eval::evaluate_with_generation(model, tokenizer, examples, o.batch_size, collator, generation, o.seed);
    out = r.scores.metrics("eval");
    out["eval_loss"] = r.loss;
    runtime = r.runtime_s, samples = r.samples, steps = r.steps;
    predictions = r.scores.predictions;
  } else {
    eval::LossEvaluation r = eval::evaluate_loss(model, examples, o.batch_size, collator);
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
    write_file_atomic(std::filesystem::path(o.output_dir) / "eval_results.json", out.dump(4) + "\n");
    if (o.predict_with_generate) {
      std::string text;
      for (size_t i = 0; i < predictions.size(); ++i) text += (i ? "\n" : "") + predictions[i];
      write_file_atomic(std::filesystem::path(o.output_dir) / "generated_predictions.txt", text);
    }
  }
  std::printf("%s\n", out.dump(2).c_str());
}

void run(const EvalOptions& o) {
  if (!o.dataset_name.empty()) precis::data::throw_dataset_name_unsupported(o.dataset_name);
  if (precis::model_type_of(o.model) == "t5") return run_with<precis::T5Model>(o);
  run_with<precis::BartModel>(o);
}

}  // namespace

PRECIS_COMMAND("eval", "Evaluate a checkpoint's loss on a dataset file (JSON, JSON lines, CSV, TSV)",
               [](CLI::App& app) {
                 auto o = std::make_shared<EvalOptions>();
                 app.add_option("--model,--model_name_or_path", o->model, "Model directory (HF checkpoint)")->required();
                 app.add_option("--data,--validation_file", o->data, "Dataset file")->required();
                 app.add_option("--text_column", o->text_column, "Column with the text to summarise (default: dialogue)");
                 app.add_option("--summary_column", o->summary_column, "Column with the reference summary (default: summary)");
                 app.add_option("--source_prefix", o->source_prefix, "Text put before every input (T5: \"summarize: \")");
                 app.add_option("--dataset_name", o->dataset_name, "Hub dataset name (not downloadable offline: use --data)");
                 app.add_option("--max_source_length", o->max_source_length, "Truncate inputs to this many tokens")->capture_default_str();
                 o->lengths.add_to(app);
                 app.add_option("--per_device_eval_batch_size", o->batch_size, "Examples per batch")->capture_default_str()->check(CLI::PositiveNumber);
                 app.add_option("--max_eval_samples", o->max_eval_samples, "Use only the first N records");
                 app.add_flag("--pad_to_max_length", o->pad_to_max_length, "Pad every example to the maximum lengths");
                 app.add_flag("--predict_with_generate", o->predict_with_generate, "Also generate summaries and score them with ROUGE (run_summarization's metrics)");
                 app.add_option("--num_beams,--generation_num_beams", o->num_beams, "Beams for generation (default: the checkpoint's generation config)");
                 app.add_option("--output_dir", o->output_dir, "Write eval_results.json (and generated_predictions.txt) here");
                 app.add_option("--seed", o->seed, "Seed of the ROUGE bootstrap")->capture_default_str();
                 app.callback([o] { run(*o); });
               });
