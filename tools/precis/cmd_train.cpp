// precis train: run_summarization.py + Seq2SeqTrainer. Options are Hugging Face's names,
// from --config FILE (JSON or YAML) and/or the command line (see `precis train --help`).
// Started by mpirun or srun with several processes, it trains data-parallel (each process
// learns its rank from the launcher's environment). Inside a SageMaker training job (the
// service's /opt/ml/input/config exists) it reads the job from SageMaker's files and launches
// across the job's hosts itself (sagemaker_train.h, docs/sagemaker.md).
#include <cstdio>
#include <cstdlib>

#include "command.h"
#include "sagemaker_train.h"
#include "precis/core/error.h"
#include "precis/dist/launch_environment.h"
#include "precis/platform/sagemaker_files.h"
#include "precis/train/trainer.h"
#include "precis/train/training_arguments.h"

namespace {

// Under a launcher every rank says which it is when its options are wrong (the launcher
// then ends the others).
precis::train::TrainingArguments parse_on_this_rank(const std::vector<std::string>& args) {
  try {
    return precis::train::parse_training_arguments(args);
  } catch (const precis::Error& e) {
    const auto launch = precis::dist::launch_environment();
    if (!launch.launched()) throw;
    std::fprintf(stderr, "precis: rank %d: error: %s\n", launch.rank, e.what());
    std::exit(1);
  }
}

}  // namespace

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
                   if (auto sagemaker = precis::platform::sagemaker_paths()) {
                     const int status = precis::cli::run_sagemaker_training(*sagemaker, args);
                     std::fflush(nullptr);
                     if (status != 0) std::exit(status);
                     return;
                   }
                   precis::train::run_training_job(parse_on_this_rank(args));
                 });
               });
