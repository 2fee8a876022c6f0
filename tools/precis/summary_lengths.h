// The command-line options of run_summarization's three summary lengths
// (precis/eval/summary_lengths.h), for the commands that evaluate or generate (eval, generate,
// serve). train takes the same names from TrainingArguments; a command line copied from a
// run_summarization job therefore works with each command.
#pragma once

#include <CLI/CLI.hpp>

#include "precis/eval/summary_lengths.h"

namespace precis::cli {

struct SummaryLengths : eval::SummaryLengths {
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
};

}  // namespace precis::cli
