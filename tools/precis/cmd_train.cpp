// precis train: run_summarization.py + Seq2SeqTrainer. Options are Hugging Face's names,
// from --config FILE (JSON or YAML) and/or the command line (see `precis train --help`).
#include <cstdio>

#include "command.h"
#include "precis/train/trainer.h"
#include "precis/train/training_arguments.h"

PRECIS_COMMAND("train", "Fine-tune a seq2seq model (run_summarization.py + Seq2SeqTrainer semantics)",
               [](CLI::App& app) {
                 // Every argument goes to our own parser, which knows HF's option names.
                 app.prefix_command();
                 app.set_help_flag();
                 app.callback([&app] {
                   std::vector<std::string> args = app.remaining();
                   for (const auto& a : args)
                     if (a == "--help" || a == "-h") {
                       std::printf("%s", precis::train::training_arguments_help().c_str());
                       return;
                     }
                   precis::train::run_training_job(precis::train::parse_training_arguments(args));
                 });
               });
