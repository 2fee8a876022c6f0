// run_summarization's three summary lengths, with HF's meanings and defaults, for the jobs that
// evaluate or generate (eval, generate, serve; the CLI adds its options in
// tools/precis/summary_lengths.h):
// - max_target_length: training labels' truncation; outside training only the default of
// - val_max_target_length: evaluation and prediction labels' truncation, and the default of
// - generation_max_length: generate()'s max_length in evaluation and prediction
//   (Seq2SeqTrainer: `gen_kwargs["max_length"] = args.generation_max_length`, which
//   run_summarization sets from val_max_target_length when it is not given).
#pragma once

#include <cstdint>
#include <optional>

namespace precis::eval {

struct SummaryLengths {
  std::optional<int64_t> max_target_length, val_max_target_length, generation_max_length;

  // The labels' truncation in evaluation (run_summarization: 128 when nothing is given).
  int64_t eval_labels() const {
    return val_max_target_length.value_or(max_target_length.value_or(128));
  }

  // generate()'s max_length when any of the three was given; nothing keeps the checkpoint's.
  std::optional<int64_t> generation() const {
    if (generation_max_length) return generation_max_length;
    if (val_max_target_length) return val_max_target_length;
    return max_target_length;
  }
};

}  // namespace precis::eval
