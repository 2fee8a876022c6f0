// run_summarization's three summary lengths, for the commands that evaluate or generate
// (eval, generate, serve), with HF's meanings and defaults:
// - max_target_length: training labels' truncation; outside training only the default of
// - val_max_target_length: evaluation and prediction labels' truncation, and the default of
// - generation_max_length: generate()'s max_length in evaluation and prediction
//   (Seq2SeqTrainer: `gen_kwargs["max_length"] = args.generation_max_length`, which
//   run_summarization sets from val_max_target_length when it is not given).
// train takes the same names from TrainingArguments; a command line copied from a
// run_summarization job therefore works with each command.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>

namespace precis::cli {

struct SummaryLengths {
  std::optional<int64_t> max_target_length, val_max_target_length, generation_max_length;

  void add_to(CLI::App& app) {
    app.add_option("--max_target_length", max_target_length,
                   "Training summaries' length in tokens; here the default of "
                   "val_max_target_length [default: 128]")
        ->check(CLI::PositiveNumber);
    app.add_option("--val_max_target_length", val_max_target_length,
                   "Evaluation summaries' length in tokens, and generation's default max_length "
                   "(default: max_target_length)")
        ->check(CLI::PositiveNumber);
    app.add_option("--generation_max_length", generation_max_length,
                   "Generation's max_length (default: val_max_target_length)")
        ->check(CLI::PositiveNumber);
  }

  // The labels' truncation in evaluation (run_summarization: 128 when nothing is given).
  int64_t eval_labels() const { return val_max_target_length.value_or(max_target_length.value_or(128)); }

  // generate()'s max_length when any of the three was given; nothing keeps the checkpoint's.
  std::optional<int64_t> generation() const {
    if (generation_max_length) return generation_max_length;
    if (val_max_target_length) return val_max_target_length;
    return max_target_length;
  }
};

}  // namespace precis::cli
