#include "precis/generate/beam_search.h"

#include <algorithm>
#include <cmath>

#include "precis/core/error.h"

namespace precis::generate {

void BeamHypotheses::add(std::vector<int32_t> tokens, float sum_logprobs, int64_t generated_len) {
  // 4.44: sum_logprobs / (generated_len ** length_penalty), in doubles (Python floats); 5.x:
  // a float32 tensor divided by the Python float, in float32.
  const double penalty = std::pow(double(generated_len), length_penalty_);
  const double score =
      float32_scores_ ? double(sum_logprobs / float(penalty)) : double(sum_logprobs) / penalty;
  if (int64_t(beams_.size()) < num_beams_ || score > worst_score_) {
    beams_.push_back({score, std::move(tokens)});
    if (int64_t(beams_.size()) > num_beams_) {
      // sorted((score, index)): the lowest score goes, the first of equals by index.
      std::vector<size_t> order(beams_.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return beams_[a].score < beams_[b].score; });
      worst_score_ = beams_[order[1]].score;
      beams_.erase(beams_.begin() + std::ptrdiff_t(order[0]));
    } else {
      worst_score_ = std::min(score, worst_score_);
    }
  }
}

bool BeamHypotheses::is_done(float best_sum_logprobs, int64_t cur_len,
                             int64_t decoder_prompt_len) const {
  if (int64_t(beams_.size()) < num_beams_) return false;
  if (early_stopping_ == EarlyStopping::kTrue) return true;
  int64_t len = cur_len - decoder_prompt_len;
  if (early_stopping_ == EarlyStopping::kNever && length_penalty_ > 0.0) {
    check(max_length_ > decoder_prompt_len, "max_length is not larger than decoder prompt length");
    len = max_length_ - decoder_prompt_len;
  }
  const double penalty = std::pow(double(len), length_penalty_);
  const double highest_attainable = float32_scores_ ? double(best_sum_logprobs / float(penalty))
                                                    : double(best_sum_logprobs) / penalty;
  return worst_score_ >= highest_attainable;
}

BeamSearchScorer::BeamSearchScorer(int64_t batch, const ResolvedGeneration& g)
    : batch_(batch), beams_(g.config.num_beams), g_(g) {
  check(beams_ > 1, "beam search needs num_beams > 1");
  hyps_.assign(size_t(batch),
               BeamHypotheses(beams_, g.config.length_penalty, g.config.early_stopping,
                              g.config.max_length, g.semantics));
  done_.assign(size_t(batch), false);
}

bool BeamSearchScorer::is_done() const {
  return std::all_of(done_.begin(), done_.end(), [](bool d) { return d; });
}

BeamStep BeamSearchScorer::process(std::span<const std::vector<int32_t>> running,
                                   std::span<const float> candidate_scores,
                                   std::span<const int32_t> candidate_tokens,
                                   std::span<const int32_t> candidate_beams, int64_t n) {
  const int64_t K = beams_;
  const int64_t cur_len = int64_t(running[0].size()) + 1;
  const auto& eos = g_.eos_token_ids;
  const bool v5 = g_.semantics == HfSemantics::kV5;
  BeamStep step;
  step.scores.assign(size_t(batch_ * K), 0.0f);
  step.tokens.assign(size_t(batch_ * K), 0);
  step.source_rows.assign(size_t(batch_ * K), 0);
  for (int64_t i = 0; i < batch_; ++i) {
    if (done_[size_t(i)]) {
      check(!eos.empty(),
            "Generated beams >= num_beams -> eos_token_id and pad_token have to be defined");
      // Dummy continuations; HF points them all at row 0 of the batch.
      for (int64_t b = 0; b < K; ++b) {
        step.scores[size_t(i * K + b)] = 0.0f;
        step.tokens[size_t(i * K + b)] = g_.pad_token_id;
        step.source_rows[size_t(i * K + b)] = 0;
      }
      continue;
    }
    int64_t filled = 0;
    for (int64_t rank = 0; rank < n && filled < K; ++rank) {
      const size_t c = size_t(i * n + rank);
      const int32_t token = candidate_tokens[c];
      const int32_t row = int32_t(i * K + candidate_beams[c]);
      if (std::find(eos.begin(), eos.end(), token) != eos.end()) {
        if (rank >= K) continue;  // only the top-K ranks may finish a hypothesis
        hyps_[size_t(i)].add(running[size_t(row)], candidate_scores[c], cur_len - g_.prompt_length);
      } else {
        step.scores[size_t(i * K + filled)] = candidate_scores[c];
        step.tokens[size_t(i * K + filled)] = token;
        step.source_rows[size_t(i * K + filled)] = row;
        ++filled;
      }
    }
    check(filled == K, "beam search: at most " + std::to_string(K) +
                           " candidates may be EOS tokens; got too few others");
    // The bound's best score: 4.44's is the best candidate (it may just have ended), 5.x's the
    // best still running.
    const float best = v5 ? step.scores[size_t(i * K)] : candidate_scores[size_t(i * n)];
    done_[size_t(i)] =
        done_[size_t(i)] || hyps_[size_t(i)].is_done(best, cur_len, g_.prompt_length);
  }
  return step;
}

BeamSearchScorer::Output BeamSearchScorer::finalize(std::span<const std::vector<int32_t>> running,
                                                    std::span<const float> running_scores) {
  const int64_t K = beams_;
  const bool v5 = g_.semantics == HfSemantics::kV5;
  for (int64_t i = 0; i < batch_; ++i) {
    if (done_[size_t(i)]) continue;
    for (int64_t b = 0; b < K; ++b) {
      const auto& tokens = running[size_t(i * K + b)];
      hyps_[size_t(i)].add(tokens, running_scores[size_t(i * K + b)],
                           int64_t(tokens.size()) - g_.prompt_length);
    }
  }
  const int64_t keep = g_.config.num_return_sequences;
  Output out;
  out.rows = batch_ * keep;
  std::vector<const BeamHypotheses::Hypothesis*> best;
  for (int64_t i = 0; i < batch_; ++i) {
    const auto& hyps = hyps_[size_t(i)].hypotheses();
    std::vector<const BeamHypotheses::Hypothesis*> sorted;
    for (const auto& h : hyps) sorted.push_back(&h);
    // sorted(..., key=score) is stable; pop() takes from the end.
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](auto* a, auto* b) { return a->score < b->score; });
    for (int64_t j = 0; j < keep; ++j) {
      check(!sorted.empty(), "beam search: fewer finished hypotheses than num_return_sequences");
      best.push_back(sorted.back());
      sorted.pop_back();
    }
  }
  size_t longest = 0;
  for (auto* h : best) longest = std::max(longest, h->tokens.size());
  out.width = std::min<int64_t>(int64_t(longest) + 1, g_.config.max_length);
  // 5.x fills with `pad_token_id or eos_token_id[0]`: a pad id of 0 is false in Python.
  const int32_t fill = v5 && g_.pad_token_id == 0 && !g_.eos_token_ids.empty() ? g_.eos_token_ids[0]
                                                                               : g_.pad_token_id;
  out.sequences.assign(size_t(out.rows * out.width), fill);
  for (size_t r = 0; r < best.size(); ++r) {
    const auto& t = best[r]->tokens;
    std::copy(t.begin(), t.end(), out.sequences.begin() + std::ptrdiff_t(r * size_t(out.width)));
    if (int64_t(t.size()) < out.width && !g_.eos_token_ids.empty())
      out.sequences[r * size_t(out.width) + t.size()] = g_.eos_token_ids[0];
    out.scores.push_back(best[r]->score);
  }
  return out;
}

}  // namespace precis::generate
