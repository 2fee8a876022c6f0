// Beam search bookkeeping exactly as transformers computes it, in either release:
//  - 4.44's BeamSearchScorer and BeamHypotheses (generation/beam_search.py): candidate scores
//    float32 (torch's), length-normalised hypothesis scores doubles (Python floats);
//  - 5.x's vectorised GenerationMixin._beam_search: the same choices, with two differences.
//    Its early-stop bound divides the best candidate still running (one that just ended is
//    pushed down by -1e9), where 4.44 divides the best of all candidates, one that just ended
//    included, so 5.x can stop a step earlier; and every score is float32. Its output rows are
//    filled with pad_token_id, or the first EOS where that id is 0 (`pad or eos`: T5's pad 0 is
//    false in Python). (At max_length 5.x finishes the top num_beams candidates as they rank,
//    4.44 the num_beams best that did not end: the extra ones rank below and never survive.)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "precis/generate/generation_config.h"

namespace precis::generate {

// The n-best finished hypotheses of one input.
class BeamHypotheses {
 public:
  struct Hypothesis {
    double score;                 // sum_logprobs / generated_len ** length_penalty
    std::vector<int32_t> tokens;  // without the EOS that finished it
  };

  BeamHypotheses(int64_t num_beams, double length_penalty, EarlyStopping early_stopping,
                 int64_t max_length, HfSemantics semantics = HfSemantics::kV4_44)
      : num_beams_(num_beams),
        length_penalty_(length_penalty),
        early_stopping_(early_stopping),
        max_length_(max_length),
        float32_scores_(semantics == HfSemantics::kV5) {}

  // Keeps the hypothesis if fewer than num_beams are stored or it beats the worst; then
  // drops the worst when there are num_beams + 1.
  void add(std::vector<int32_t> tokens, float sum_logprobs, int64_t generated_len);

  // Whether no running beam can still enter the list, in the three early_stopping modes of
  // generation/beam_search.py's BeamHypotheses.is_done (True, False, "never"); 5.x's
  // _check_early_stop_heuristic is the same test in float32.
  bool is_done(float best_sum_logprobs, int64_t cur_len, int64_t decoder_prompt_len) const;

  size_t size() const { return beams_.size(); }
  double worst_score() const { return worst_score_; }
  // In insertion order, as Python's list (finalize sorts them stably).
  const std::vector<Hypothesis>& hypotheses() const { return beams_; }

 private:
  int64_t num_beams_;
  double length_penalty_;
  EarlyStopping early_stopping_;
  int64_t max_length_;
  bool float32_scores_;  // 5.x: sum_logprobs / length ** penalty is a float32 tensor's division
  std::vector<Hypothesis> beams_;
  double worst_score_ = 1e9;
};

// One step's choice for every running row: the token it appends, its new cumulative score,
// and the row (beam) it continues.
struct BeamStep {
  std::vector<float> scores;         // (B*K)
  std::vector<int32_t> tokens;       // (B*K)
  std::vector<int32_t> source_rows;  // (B*K), indices into the B*K running rows
};

// The beam-search state of a batch: B inputs x K beams.
class BeamSearchScorer {
 public:
  BeamSearchScorer(int64_t batch, const ResolvedGeneration& generation);

  // BeamSearchScorer.process. `running` holds the B*K running sequences (cur_len tokens each);
  // candidate_scores/tokens/beams are the top 2K (or more) candidates per input in descending
  // score order, (B, n) flattened, beams being 0..K-1 within the input.
  BeamStep process(std::span<const std::vector<int32_t>> running,
                   std::span<const float> candidate_scores,
                   std::span<const int32_t> candidate_tokens,
                   std::span<const int32_t> candidate_beams, int64_t candidates_per_input);

  bool is_done() const;
  bool input_done(int64_t i) const { return done_[size_t(i)]; }

  // BeamSearchScorer.finalize: the best num_return_sequences hypotheses per input as rows
  // of equal width, EOS after a shorter hypothesis, then pad.
  struct Output {
    int64_t rows = 0, width = 0;
    std::vector<int32_t> sequences;  // rows * width
    std::vector<double> scores;      // rows
  };
  Output finalize(std::span<const std::vector<int32_t>> running,
                  std::span<const float> running_scores);

  const std::vector<BeamHypotheses>& hypotheses() const { return hyps_; }

 private:
  int64_t batch_, beams_;
  ResolvedGeneration g_;
  std::vector<BeamHypotheses> hyps_;
  std::vector<bool> done_;
};

}  // namespace precis::generate
