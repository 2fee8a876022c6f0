// precis train: run_summarization.py + Seq2SeqTrainer in one loop. Reads the data files,
// tokenizes as run_summarization does, trains with HF's step accounting, schedule,
// optimizer and clipping, logs, checkpoints atomically, resumes bit-identically, evaluates,
// and writes the output directory as Trainer does.
#pragma once

#include "precis/train/training_arguments.h"

namespace precis::train {

// Runs do_train / do_eval / do_predict as asked. Throws precis::Error on bad input.
void run_training_job(const TrainingArguments& args);

}  // namespace precis::train
