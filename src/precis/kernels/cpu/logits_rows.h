// The logits processors and sampling warpers on one row of scores (V floats), given that
// row's decoder tokens so far (`history`, the start token included): the CPU twin of the
// decoding ops (decoding.h) runs them row by row. transformers 4.44's semantics
// (generation/logits_process.py); banned tokens get -inf, forced tokens exactly 0 with every
// other -inf.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "precis/kernels/decoding.h"

namespace precis::cpu {

// RepetitionPenaltyLogitsProcessor: once per distinct id x in history,
// s[x] = s[x] < 0 ? s[x] * penalty : s[x] / penalty (in float, as torch computes it).
void apply_repetition_penalty(std::span<const int32_t> history, float penalty, std::span<float> s);

// NoRepeatNGramLogitsProcessor: bans every w such that (last n-1 tokens, w) already occurs in
// history. Nothing is banned while len(history) + 1 < n.
void ban_repeated_ngrams(std::span<const int32_t> history, int64_t n, std::span<float> s);

// NoBadWordsLogitsProcessor (a SequenceBias of -inf): a one-token word is always banned; a
// longer word bans its last token when history ends with the word's other tokens (words
// longer than history are ignored). `words` must already exclude the words equal to [eos].
void ban_bad_words(std::span<const int32_t> history, const std::vector<std::vector<int32_t>>& words,
                   std::span<float> s);

// MinLength / MinNewTokensLength: every EOS id -inf while `length` < `minimum`.
void ban_eos_below(int64_t length, int64_t minimum, std::span<const int32_t> eos_ids,
                   std::span<float> s);

// ForcedBOS / ForcedEOS: every score -inf, then s[id] = 0 for each forced id.
void force_tokens(std::span<const int32_t> ids, std::span<float> s);

// Sampling warpers (TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper).
void apply_temperature(float temperature, std::span<float> s);
// Keeps the scores >= the k-th largest (ties at the threshold survive), k = max(k, min_keep).
void keep_top_k(int64_t k, int64_t min_keep, std::span<float> s);
// Sorts ascending, removes tokens whose cumulative probability (softmax of the sorted scores,
// summed from the lowest) is <= 1 - top_p, always keeping the `min_keep` highest.
void keep_top_p(double top_p, int64_t min_keep, std::span<float> s);

// log_softmax over one row, in place (beam search runs the processors on log-probabilities).
void log_softmax(std::span<float> s);
// row_math::row_exp_sum and row_max as the library is built (its AVX-512 form where -march has it):
// what the tests compare with the portable form, whose code is built without -march.
double row_exp_sum_as_built(const float* row, int64_t n, float max, float* out);
float row_max_as_built(const float* row, int64_t n);

// Every processor of `p` in order, on one row whose history has history.size() tokens.
void process_row(const LogitsProcessing& p, std::span<const int32_t> history, std::span<float> s);
// Temperature, top-k, top-p.
void warp_row(const LogitsWarping& w, std::span<float> s);

// Draws an index with probability softmax(scores); -inf scores have probability zero and
// are never drawn. `u` in [0, 1). Returns -1 if every score is -inf. The CUDA twin's draw
// (decoding_math::draw), kept here as its reference.
int32_t sample_from_scores(std::span<const float> scores, double u);

// torch.multinomial(softmax(scores), 1) on one row, as torch computes it on the CPU for one
// sample (aten/src/ATen/native/Distributions.cpp, multinomial's fast path): probabilities p
// in float (exp(x - max) times 1 / sum), q = Exp(1) per element from `uniforms` (the row's
// TorchCpuGenerator::uniform() draws, one per token, in order), and the first argmax of the
// float p / q (a NaN, 0 / 0 from u = 0 on a zero-probability token, wins as in torch.argmax).
// -1 if every score is -inf (torch raises there).
int32_t torch_multinomial_row(std::span<const float> scores, std::span<const double> uniforms);

}  // namespace precis::cpu
