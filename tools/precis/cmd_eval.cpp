// precis eval: the loss of a checkpoint on a dataset file, as Trainer.evaluate() reports it
// (the job is the library's eval::evaluate_checkpoint, which precis.evaluate calls too).
#include <cstdio>
#include <memory>

#include "command.h"
#include "hf_semantics_option.h"
#include "precis/eval/checkpoint_evaluation.h"
#include "quantization_option.h"
#include "summary_lengths.h"

namespace {

struct EvalCliOptions {
  precis::eval::EvaluationOptions eval;
  precis::cli::SummaryLengths lengths;
};

}  // namespace

PRECIS_COMMAND("eval", "Evaluate a checkpoint's loss on a dataset file (JSON, JSON lines, CSV, TSV)",
               [](CLI::App& app) {
                 auto cli = std::make_shared<EvalCliOptions>();
                 precis::eval::EvaluationOptions* o = &cli->eval;
                 app.add_option("--model,--model_name_or_path", o->model, "Model directory (HF checkpoint)")->required();
                 app.add_option("--data,--validation_file", o->data, "Dataset file")->required();
                 app.add_option("--text_column", o->text_column, "Column with the text to summarise (default: dialogue)");
                 app.add_option("--summary_column", o->summary_column, "Column with the reference summary (default: summary)");
                 app.add_option("--source_prefix", o->source_prefix, "Text put before every input (T5: \"summarize: \")");
                 app.add_option("--dataset_name", o->dataset_name, "Hub dataset name (not downloadable offline: use --data)");
                 app.add_option("--max_source_length", o->max_source_length, "Truncate inputs to this many tokens")->capture_default_str();
                 cli->lengths.add_to(app);
                 app.add_option("--per_device_eval_batch_size", o->per_device_eval_batch_size, "Examples per batch")->capture_default_str()->check(CLI::PositiveNumber);
                 app.add_option("--max_eval_samples", o->max_eval_samples, "Use only the first N records");
                 app.add_flag("--pad_to_max_length", o->pad_to_max_length, "Pad every example to the maximum lengths");
                 app.add_flag("--predict_with_generate", o->predict_with_generate, "Also generate summaries and score them with ROUGE (run_summarization's metrics)");
                 app.add_option("--num_beams,--generation_num_beams", o->num_beams, "Beams for generation (default: the checkpoint's generation config)");
                 app.add_option("--output_dir", o->output_dir, "Write eval_results.json (and generated_predictions.txt) here");
                 app.add_option("--seed", o->seed, "Seed of the ROUGE bootstrap")->capture_default_str();
                 precis::cli::add_hf_semantics_option(app);
                 precis::cli::add_quantization_option(app);
                 app.callback([cli] {
                   precis::eval::EvaluationOptions options = cli->eval;
                   options.lengths = cli->lengths;
                   std::printf("%s\n", precis::eval::evaluate_checkpoint(options).dump(2).c_str());
                 });
               });
