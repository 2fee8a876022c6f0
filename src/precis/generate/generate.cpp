#include "precis/generate/generate.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "precis/generate/beam_search.h"
#include "precis/generate/logits_processors.h"
#include "precis/generate/sampling.h"
#include "precis/model/bart/bart_incremental.h"
#include "precis/model/t5/t5_incremental.h"

namespace precis::generate {

namespace {

bool contains(const std::vector<int32_t>& ids, int32_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

void keep_logits(const Tensor& logits, Generated& out) {
  out.logits.insert(out.logits.end(), logits.f32(), logits.f32() + logits.numel());
  ++out.steps;
}

// Greedy search and multinomial sampling (GenerationMixin._sample): processors on the raw
// logits, then argmax, or warpers + softmax + a draw. `group` rows per input.
Generated greedy_or_sample(Seq2SeqDecoder& decoder, const ResolvedGeneration& g,
                           const GenerateOptions& options) {
  const GenerationConfig& c = g.config;
  const int64_t R = decoder.rows();
  const LogitsProcessors processors(g);
  const bool has_eos = !g.eos_token_ids.empty();
  std::vector<std::vector<int32_t>> history(size_t(R), {g.decoder_start_token_id});
  std::vector<char> unfinished(size_t(R), 1);
  std::vector<int32_t> last(size_t(R), g.decoder_start_token_id);
  Generated out;
  out.running_rows = R;
  int64_t cur_len = 1;
  for (;;) {
    const Tensor& logits = decoder.step(last);
    const int64_t V = logits.size(1);
    out.vocab = V;
    if (options.output_logits) keep_logits(logits, out);
    float* scores = logits.f32();  // processed in place: the decoder rewrites it next step
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < R; ++r) {
      std::span<float> row(scores + r * V, size_t(V));
      processors.process(history[size_t(r)], row);
      int32_t next;
      if (c.do_sample) {
        processors.warp(row);
        next = sample_from_scores(row, uniform(c.seed, uint64_t(r), uint64_t(cur_len)));
        check(next >= 0, "sampling: every token of a row has probability zero");
      } else {
        next = int32_t(std::max_element(row.begin(), row.end()) - row.begin());  // first max
      }
      if (has_eos && !unfinished[size_t(r)]) next = g.pad_token_id;
      last[size_t(r)] = next;
    }
    ++cur_len;
    bool any_unfinished = false;
    for (int64_t r = 0; r < R; ++r) {
      history[size_t(r)].push_back(last[size_t(r)]);
      if (contains(g.eos_token_ids, last[size_t(r)]) || cur_len >= c.max_length)
        unfinished[size_t(r)] = 0;
      any_unfinished |= unfinished[size_t(r)] != 0;
    }
    if (!any_unfinished) break;
  }
  out.rows = R;
  out.width = cur_len;
  out.sequences.reserve(size_t(R * cur_len));
  for (const auto& h : history) out.sequences.insert(out.sequences.end(), h.begin(), h.end());
  return out;
}

// The best `n` of (score, flat index) in descending order; equal scores by lower index.
struct TopN {
  std::vector<float> scores;
  std::vector<int64_t> indices;
  explicit TopN(size_t n) { scores.reserve(n + 1), indices.reserve(n + 1), capacity = n; }
  size_t capacity;
  void offer(float s, int64_t i) {
    if (scores.size() == capacity && !(s > scores.back())) return;  // later index loses ties
    size_t pos = scores.size();
    while (pos > 0 && s > scores[pos - 1]) --pos;
    scores.insert(scores.begin() + std::ptrdiff_t(pos), s);
    indices.insert(indices.begin() + std::ptrdiff_t(pos), i);
    if (scores.size() > capacity) scores.pop_back(), indices.pop_back();
  }
};

// GenerationMixin._beam_search with BeamSearchScorer (4.44).
Generated beam_search(Seq2SeqDecoder& decoder, const ResolvedGeneration& g,
                      const GenerateOptions& options) {
  const GenerationConfig& c = g.config;
  const int64_t B = decoder.batch(), K = c.num_beams, R = decoder.rows();
  const LogitsProcessors processors(g);
  BeamSearchScorer scorer(B, g);
  std::vector<std::vector<int32_t>> history(size_t(R), {g.decoder_start_token_id});
  std::vector<float> beam_scores(size_t(R), 0.0f);
  for (int64_t r = 0; r < R; ++r)
    if (r % K) beam_scores[size_t(r)] = -1e9f;  // only beam 0 is live at the first step
  std::vector<int32_t> last(size_t(R), g.decoder_start_token_id);
  const int64_t n = std::max<int64_t>(2, 1 + int64_t(g.eos_token_ids.size())) * K;
  std::vector<float> cand_scores(size_t(B * n));
  std::vector<int32_t> cand_tokens(size_t(B * n)), cand_beams(size_t(B * n));
  Generated out;
  out.running_rows = R;
  int64_t cur_len = 1;
  for (;;) {
    const Tensor& logits = decoder.step(last);
    const int64_t V = logits.size(1);
    out.vocab = V;
    if (options.output_logits) keep_logits(logits, out);
    float* scores = logits.f32();
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < R; ++r) {
      std::span<float> row(scores + r * V, size_t(V));
      log_softmax(row);
      processors.process(history[size_t(r)], row);
      const float running = beam_scores[size_t(r)];
      for (float& x : row) x = x + running;
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < B; ++i) {
      TopN top(static_cast<size_t>(n));
      const float* item = scores + i * K * V;
      for (int64_t j = 0; j < K * V; ++j) top.offer(item[j], j);
      for (int64_t k = 0; k < n; ++k) {
        cand_scores[size_t(i * n + k)] = top.scores[size_t(k)];
        cand_tokens[size_t(i * n + k)] = int32_t(top.indices[size_t(k)] % V);
        cand_beams[size_t(i * n + k)] = int32_t(top.indices[size_t(k)] / V);
      }
    }
    BeamStep step = scorer.process(history, cand_scores, cand_tokens, cand_beams, n);
    std::vector<std::vector<int32_t>> next(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) {
      next[size_t(r)] = history[size_t(step.source_rows[size_t(r)])];
      next[size_t(r)].push_back(step.tokens[size_t(r)]);
    }
    history = std::move(next);
    beam_scores = step.scores;
    last = step.tokens;
    decoder.reorder(step.source_rows);
    ++cur_len;
    if (scorer.is_done() || cur_len >= c.max_length) break;
  }
  BeamSearchScorer::Output final = scorer.finalize(history, beam_scores);
  out.rows = final.rows;
  out.width = final.width;
  out.sequences = std::move(final.sequences);
  out.sequence_scores = std::move(final.scores);
  return out;
}

// Checks shared by every model, then greedy/sampling or beam search on `decoder`, which
// make_decoder(batch, source_len, rows_per_input, max_length) lays out.
template <class MakeDecoder>
Generated run(const ResolvedGeneration& g, const Tensor& input_ids, const Tensor& attention_mask,
              const GenerateOptions& options, MakeDecoder make_decoder) {
  const GenerationConfig& c = g.config;
  check(!(c.do_sample && c.num_beams > 1),
        "generate: beam sampling (do_sample with num_beams > 1) is not supported; use "
        "num_beams 1 to sample or do_sample false for beam search");
  const int64_t B = input_ids.size(0), S = input_ids.size(1);
  const int64_t group = c.num_beams > 1 ? c.num_beams : c.num_return_sequences;
  auto decoder = make_decoder(B, S, group, c.max_length);
  decoder.encode(input_ids, attention_mask);
  if (c.num_beams > 1) return beam_search(decoder, g, options);
  return greedy_or_sample(decoder, g, options);
}

void check_inputs(const Tensor& input_ids) {
  check(input_ids.rank() == 2 && input_ids.size(0) > 0 && input_ids.size(1) > 0,
        "generate: input_ids must be (batch, length) with both positive, found " +
            input_ids.describe());
}

// Right-pads token lists with `pad` into (B, S) ids and a mask, then calls `generate_padded`.
template <class GeneratePadded>
Generated pad_and_generate(std::span<const std::vector<int32_t>> inputs, int32_t pad,
                           GeneratePadded generate_padded) {
  check(!inputs.empty(), "generate: no inputs");
  size_t longest = 0;
  for (const auto& ids : inputs) {
    check(!ids.empty(), "generate: an input has no tokens");
    longest = std::max(longest, ids.size());
  }
  const int64_t B = int64_t(inputs.size()), S = int64_t(longest);
  std::vector<int32_t> ids(size_t(B * S), pad), mask(size_t(B * S), 0);
  for (int64_t b = 0; b < B; ++b) {
    const auto& in = inputs[size_t(b)];
    std::copy(in.begin(), in.end(), ids.begin() + b * S);
    std::fill(mask.begin() + b * S, mask.begin() + b * S + std::ptrdiff_t(in.size()), 1);
  }
  Tensor input_ids{ids.data(), Shape({B, S}), DType::I32};
  Tensor attention_mask{mask.data(), Shape({B, S}), DType::I32};
  return generate_padded(input_ids, attention_mask);
}

}  // namespace

Generated generate(const BartModel& model, const Tensor& input_ids, const Tensor& attention_mask,
                   const GenerationConfig& config, const GenerateOptions& options) {
  check_inputs(input_ids);
  return run(resolve(config, special_tokens(model.config)), input_ids, attention_mask, options,
             [&](int64_t B, int64_t S, int64_t group, int64_t max_length) {
               return BartIncrementalDecoder(model.config, model.params, B, S, group, max_length);
             });
}

Generated generate(const T5Model& model, const Tensor& input_ids, const Tensor& attention_mask,
                   const GenerationConfig& config, const GenerateOptions& options) {
  check_inputs(input_ids);
  return run(resolve(config, special_tokens(model.config)), input_ids, attention_mask, options,
             [&](int64_t B, int64_t S, int64_t group, int64_t max_length) {
               return T5IncrementalDecoder(model.config, model.params, B, S, group, max_length);
             });
}

Generated generate(const BartModel& model, std::span<const std::vector<int32_t>> inputs,
                   const GenerationConfig& config, const GenerateOptions& options) {
  return pad_and_generate(inputs, model.config.pad_token_id, [&](const Tensor& ids, const Tensor& mask) {
    return generate(model, ids, mask, config, options);
  });
}

Generated generate(const T5Model& model, std::span<const std::vector<int32_t>> inputs,
                   const GenerationConfig& config, const GenerateOptions& options) {
  return pad_and_generate(inputs, model.config.pad_token_id, [&](const Tensor& ids, const Tensor& mask) {
    return generate(model, ids, mask, config, options);
  });
}

}  // namespace precis::generate
