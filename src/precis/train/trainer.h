// precis train: run_summarization.py + Seq2SeqTrainer. Reads the data files, tokenizes as
// run_summarization does, trains with HF's step accounting, schedule, optimizer and clipping,
// logs, checkpoints atomically, resumes bit-identically, evaluates, and writes the output
// directory as Trainer does. run_training_job makes the communicator (several ranks under
// mpirun or srun) and picks the model family; the job itself is Seq2SeqTrainer
// (seq2seq_trainer.h), made of the parts its header names.
#pragma once

#include <functional>
#include <string>

#include "precis/train/training_arguments.h"

namespace precis::train {

// What a platform does with a rank's error before the job is ended (SageMaker writes its
// failure file): the rank and the error's message.
using RankErrorReport = std::function<void(int rank, const std::string& cause)>;

// Runs do_train / do_eval / do_predict as asked. Throws precis::Error on bad input; with
// several ranks, a rank's error goes to stderr and `on_rank_error`, then ends the whole job.
void run_training_job(const TrainingArguments& args, const RankErrorReport& on_rank_error = {});

}  // namespace precis::train
