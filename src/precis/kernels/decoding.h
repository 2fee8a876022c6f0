// The ops of one decoding step, over that step's scores (R rows, V tokens) F32, in place:
// the logits processors (for beam search after a log-softmax, and followed by each row's
// running beam score), the choice of each row's next token (first argmax, or the sampling
// warpers and a draw), and beam search's best candidates per input. Semantics: transformers
// 4.44, generation/logits_process.py, and generation/utils.py's _get_logits_processor (the
// processors' order), _sample and _beam_search. generate/ builds the parameters from a
// resolved GenerationConfig and reads back to the host once per step: the chosen tokens, or
// the candidates.
//
// history (R, T, 1) I32: row r's decoder tokens so far, start token first; the first `length`
// of each row are valid. Banned tokens get -inf; forced tokens get exactly 0, every other -inf.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "precis/core/tensor.h"
#include "precis/core/torch_cpu_generator.h"

namespace precis {

// The processors of one configuration, in _get_logits_processor's order; a field at its
// neutral value is off.
struct LogitsProcessing {
  float repetition_penalty = 1.0f;  // RepetitionPenaltyLogitsProcessor, once per distinct id
  int64_t no_repeat_ngram_size = 0;  // NoRepeatNGramLogitsProcessor
  std::vector<std::vector<int32_t>> bad_words;  // NoBadWordsLogitsProcessor, without [eos]
  std::vector<int32_t> eos_token_ids;           // what min_length / min_new_tokens ban
  int64_t min_length = 0;                       // MinLengthLogitsProcessor (start token counts)
  int64_t min_new_tokens = 0, prompt_length = 0;  // MinNewTokensLengthLogitsProcessor
  std::optional<int32_t> forced_bos_token_id;     // at length 1
  std::vector<int32_t> forced_eos_token_ids;      // at length max_length - 1
  int64_t max_length = 0;
};

// The sampling warpers, in _get_logits_warper's order (temperature, top-k, top-p).
struct LogitsWarping {
  float temperature = 1.0f;
  int64_t top_k = 0;
  double top_p = 1.0;
  int64_t min_keep = 1;
};

// The processors on every row of scores (R, V). With beam_scores (R) F32 defined, beam search's
// step: each row is log-softmaxed first, and its running score added after.
void next_token_scores(const Tensor& scores, const Tensor& history, int64_t length,
                       const LogitsProcessing& processing, const Tensor& beam_scores);

// tokens (R) I32: each row's first argmax, or with `sampling` its warped scores' draw; when
// sampling, -1 where every score is -inf (greedy then gives 0, the first of the equal scores).
// On the CPU the draw is torch.multinomial's from `generator` (R * V draws a step, in row
// order: HF's ids after torch.manual_seed). The CUDA twin draws uniform(generator.seed(), r,
// counter) (decoding_math.h) and leaves the generator as it was: torch's CUDA stream is
// another generator, and CUDA-sampled ids are deterministic per seed but not HF's.
void choose_tokens(const Tensor& scores, const LogitsWarping* sampling,
                   TorchCpuGenerator& generator, uint64_t counter, const Tensor& tokens);

// Beam search's candidates: for each input i (rows i*group .. i*group + group - 1, seen as one
// flat row of group*V scores), the best n in descending order, equal scores by lower flat
// index (torch.topk's order there). values (B, n) F32, indices (B, n) I32 (beam * V + token).
void top_candidates(const Tensor& scores, int64_t group, int64_t n, const Tensor& values,
                    const Tensor& indices);

}  // namespace precis
