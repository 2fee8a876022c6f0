// precis eval: the loss of a checkpoint on a dataset file, as Trainer.evaluate() reports it.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command.h"
#include "precis/data/dataset.h"
#include "precis/eval/loss_evaluation.h"
#include "precis/tokenize/tokenizer.h"

namespace {

struct EvalOptions {
  std::string model, data, text_column, summary_column, source_prefix, dataset_name;
  size_t max_source_length = 1024, max_target_length = 128;
  int64_t batch_size = 8;
  size_t max_eval_samples = 0;
  bool pad_to_max_length = false;
};

double round_to(double v, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

void run(const EvalOptions& o) {
  using namespace precis;
  if (!o.dataset_name.empty()) data::throw_dataset_name_unsupported(o.dataset_name);
  BartModel model = BartModel::load(o.model);
  tokenize::Tokenizer tokenizer = tokenize::Tokenizer::from_directory(o.model);
  data::ReadOptions read = data::columns_for("", o.text_column, o.summary_column);
  if (o.max_eval_samples) read.max_samples = o.max_eval_samples;
  data::Dataset dataset = data::read_dataset(o.data, read);
  auto examples = data::preprocess(
      dataset.records, tokenizer,
      {o.source_prefix, o.max_source_length, o.max_target_length, o.pad_to_max_length});
  data::CollatorOptions collator{model.config.pad_token_id, model.config.decoder_start_token_id, 1};
  eval::LossEvaluation r = eval::evaluate_loss(model, examples, o.batch_size, collator);
  // Trainer rounds runtime to 4 digits and the rates to 3 (speed_metrics).
  nlohmann::json out = {
      {"eval_loss", r.eval_loss},
      {"eval_samples", r.samples},
      {"eval_runtime", round_to(r.runtime_s, 4)},
      {"eval_samples_per_second", round_to(double(r.samples) / r.runtime_s, 3)},
      {"eval_steps_per_second", round_to(double(r.steps) / r.runtime_s, 3)},
  };
  std::printf("%s\n", out.dump(2).c_str());
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
                 app.add_option("--max_target_length,--val_max_target_length", o->max_target_length, "Truncate summaries to this many tokens")->capture_default_str();
                 app.add_option("--per_device_eval_batch_size", o->batch_size, "Examples per batch")->capture_default_str()->check(CLI::PositiveNumber);
                 app.add_option("--max_eval_samples", o->max_eval_samples, "Use only the first N records");
                 app.add_flag("--pad_to_max_length", o->pad_to_max_length, "Pad every example to the maximum lengths");
                 app.callback([o] { run(*o); });
               });
