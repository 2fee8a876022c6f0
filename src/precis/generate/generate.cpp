#include "precis/generate/generate.h"

#include <algorithm>
#include <type_traits>

#include "precis/generate/beam_search.h"
#include "precis/generate/logits_processors.h"
#include "precis/generate/token_history.h"
#include "precis/kernels/constant_weights.h"
#include "precis/kernels/copy.h"
#include "precis/model/families.h"

namespace precis::generate {

namespace {

bool contains(const std::vector<int32_t>& ids, int32_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

void keep_logits(const Tensor& logits, Generated& out) {
  const size_t at = out.logits.size();
  out.logits.resize(at + size_t(logits.numel()));
  copy(logits, Tensor{out.logits.data() + at, logits.shape, DType::F32, Device::cpu()});
  ++out.steps;
}

// A host vector's view as a tensor, for copies to and from the decoding device.
template <class T>
Tensor host_view(std::vector<T>& v, Shape shape) {
  return Tensor{v.data(), shape, std::is_same_v<T, float> ? DType::F32 : DType::I32, Device::cpu()};
}

// Greedy search and multinomial sampling (GenerationMixin._sample): processors on the raw
// logits, then argmax, or warpers + softmax + a draw, on the decoding device; the chosen
// tokens are the step's one read back to the host.
Generated greedy_or_sample(Seq2SeqDecoder& decoder, const ResolvedGeneration& g,
                           const GenerateOptions& options) {
  const GenerationConfig& c = g.config;
  const int64_t R = decoder.rows();
  const LogitsProcessing processing = logits_processing(g);
  const LogitsWarping warping = logits_warping(g);
  const bool has_eos = !g.eos_token_ids.empty();
  TokenHistory history(R, c.max_length, g.decoder_start_token_id, current_device());
  Arena scratch(size_t(R) * 4 + Arena::kAlignment);
  const Tensor chosen = scratch.alloc(Shape{R}, DType::I32);
  std::vector<char> unfinished(size_t(R), 1);
  std::vector<int32_t> last(size_t(R), g.decoder_start_token_id);
  TorchCpuGenerator own_generator(c.seed);
  TorchCpuGenerator& generator = options.generator ? *options.generator : own_generator;
  Generated out;
  out.running_rows = R;
  for (;;) {
    const Tensor& logits = decoder.step(last);
    out.vocab = logits.size(1);
    if (options.output_logits) keep_logits(logits, out);
    // Processed in place: the decoder rewrites the logits next step.
    next_token_scores(logits, history.device_tokens(), history.length(), processing, Tensor{});
    choose_tokens(logits, c.do_sample ? &warping : nullptr, generator,
                  uint64_t(history.length()), chosen);
    copy(chosen, host_view(last, Shape{R}));
    for (int64_t r = 0; r < R; ++r) {
      check(last[size_t(r)] >= 0, "sampling: every token of a row has probability zero");
      if (has_eos && !unfinished[size_t(r)]) last[size_t(r)] = g.pad_token_id;
    }
    history.append(last);
    bool any_unfinished = false;
    for (int64_t r = 0; r < R; ++r) {
      if (contains(g.eos_token_ids, last[size_t(r)]) || history.length() >= c.max_length)
        unfinished[size_t(r)] = 0;
      any_unfinished |= unfinished[size_t(r)] != 0;
    }
    if (!any_unfinished) break;
  }
  out.rows = R;
  out.width = history.length();
  out.sequences.reserve(size_t(R * out.width));
  for (const auto& h : history.rows()) out.sequences.insert(out.sequences.end(), h.begin(), h.end());
  return out;
}

// GenerationMixin._beam_search with BeamSearchScorer (4.44): log-softmax, processors, the
// running scores and the top candidates on the decoding device; the candidates are the step's
// one read back, and the scorer's choice goes back up. An input whose search has ended leaves
// the decoder (its rows are HF's dummies from then on, never read), as CTranslate2 drops a
// finished input: the inputs still searching compute exactly what they did with it, in fewer
// rows. (Not while the caller keeps every step's logits: those keep the batch's layout.)
Generated beam_search(Seq2SeqDecoder& decoder, const ResolvedGeneration& g,
                      const GenerateOptions& options) {
  const GenerationConfig& c = g.config;
  const int64_t B = decoder.batch(), K = c.num_beams, R = decoder.rows();
  const LogitsProcessing processing = logits_processing(g);
  BeamSearchScorer scorer(B, g);
  TokenHistory history(R, c.max_length, g.decoder_start_token_id, current_device());
  std::vector<float> beam_scores(size_t(R), 0.0f);
  for (int64_t r = 0; r < R; ++r)
    if (r % K) beam_scores[size_t(r)] = -1e9f;  // only beam 0 is live at the first step
  const int64_t n = std::max<int64_t>(2, 1 + int64_t(g.eos_token_ids.size())) * K;
  Arena scratch(size_t(R + 2 * B * n) * 4 + 3 * Arena::kAlignment);
  const Tensor running = scratch.alloc(Shape{R}), values = scratch.alloc(Shape{B, n}),
               indices = scratch.alloc(Shape{B, n}, DType::I32);
  std::vector<float> cand_scores(size_t(B * n));
  std::vector<int32_t> cand_tokens(size_t(B * n)), cand_beams(size_t(B * n));
  // The inputs the decoder still runs (ascending), and their rows' running scores and tokens.
  std::vector<int32_t> inputs(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) inputs[size_t(b)] = int32_t(b);
  std::vector<float> live_scores(static_cast<size_t>(R));
  std::vector<int32_t> last(size_t(R), g.decoder_start_token_id), sources(static_cast<size_t>(R));
  std::vector<float> live_values(size_t(B * n));
  std::vector<int32_t> live_indices(size_t(B * n));
  Generated out;
  out.running_rows = R;
  for (;;) {
    const int64_t L = int64_t(inputs.size()), rows = L * K;
    const Tensor& logits = decoder.step(std::span<const int32_t>(last.data(), size_t(rows)));
    const int64_t V = logits.size(1);
    out.vocab = V;
    if (options.output_logits) keep_logits(logits, out);
    for (int64_t j = 0; j < L; ++j)
      for (int64_t k = 0; k < K; ++k)
        live_scores[size_t(j * K + k)] = beam_scores[size_t(inputs[size_t(j)] * K + k)];
    copy(host_view(live_scores, Shape{R}).prefix(Shape{rows}), running.prefix(Shape{rows}));
    next_token_scores(logits, history.device_tokens(), history.length(), processing,
                      running.prefix(Shape{rows}));
    top_candidates(logits, K, n, values.prefix(Shape{L, n}), indices.prefix(Shape{L, n}));
    copy(values.prefix(Shape{L, n}), host_view(live_values, Shape{B, n}).prefix(Shape{L, n}));
    copy(indices.prefix(Shape{L, n}), host_view(live_indices, Shape{B, n}).prefix(Shape{L, n}));
    // Each running input's candidates in its own place; a finished input's are not read.
    for (int64_t j = 0; j < L; ++j)
      for (int64_t e = 0; e < n; ++e) {
        const size_t at = size_t(inputs[size_t(j)] * n + e), from = size_t(j * n + e);
        cand_scores[at] = live_values[from];
        cand_tokens[at] = int32_t(live_indices[from] % V);
        cand_beams[at] = int32_t(live_indices[from] / V);
      }
    BeamStep step = scorer.process(history.rows(), cand_scores, cand_tokens, cand_beams, n);
    history.reorder_and_append(step.source_rows, step.tokens);
    beam_scores = step.scores;
    // The running rows continue beams of their own input (rows b*K .. b*K + K - 1).
    for (int64_t j = 0; j < L; ++j)
      for (int64_t k = 0; k < K; ++k) {
        const int64_t row = inputs[size_t(j)] * K + k;
        sources[size_t(j * K + k)] =
            int32_t(j * K + step.source_rows[size_t(row)] - inputs[size_t(j)] * K);
        last[size_t(j * K + k)] = step.tokens[size_t(row)];
      }
    decoder.reorder(std::span<const int32_t>(sources.data(), size_t(rows)));
    if (scorer.is_done() || history.length() >= c.max_length) break;
    if (options.output_logits) continue;
    std::vector<int32_t> kept, kept_rows;
    for (int64_t j = 0; j < L; ++j)
      if (!scorer.input_done(inputs[size_t(j)])) kept.push_back(int32_t(j));
    if (int64_t(kept.size()) == L) continue;
    decoder.keep_inputs(kept);
    for (size_t i = 0; i < kept.size(); ++i) {
      inputs[i] = inputs[size_t(kept[i])];
      for (int64_t k = 0; k < K; ++k) {
        kept_rows.push_back(int32_t(inputs[i] * K + k));
        last[i * size_t(K) + size_t(k)] = last[size_t(kept[i] * K + k)];
      }
    }
    inputs.resize(kept.size());
    history.keep_rows(kept_rows);
  }
  BeamSearchScorer::Output final = scorer.finalize(history.rows(), beam_scores);
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

// generate() for a model family, decoding with its KV-cached Decoder.
template <class Decoder, class Model>
Generated generate_with(const Model& model, const Tensor& input_ids, const Tensor& attention_mask,
                        const GenerationConfig& config, const GenerateOptions& options) {
  check_inputs(input_ids);
  // Nothing writes the parameters while this runs: the CPU's decoding steps may pack them once.
  const ConstantWeightsScope constant(model.arena.base(), model.arena.capacity());
  return run(resolve(config, special_tokens(model.config)), input_ids, attention_mask, options,
             [&](int64_t B, int64_t S, int64_t group, int64_t max_length) {
               return Decoder(model.config, model.params, B, S, group, max_length);
             });
}

}  // namespace

template <class Model>
Generated generate(const Model& model, const Tensor& input_ids, const Tensor& attention_mask,
                   const GenerationConfig& config, const GenerateOptions& options) {
  using Decoder = typename ModelFamily<decltype(Model::config)>::IncrementalDecoder;
  return generate_with<Decoder>(model, input_ids, attention_mask, config, options);
}

template <class Model>
Generated generate(const Model& model, std::span<const std::vector<int32_t>> inputs,
                   const GenerationConfig& config, const GenerateOptions& options) {
  return pad_and_generate(inputs, model.config.pad_token_id, [&](const Tensor& ids, const Tensor& mask) {
    return generate(model, ids, mask, config, options);
  });
}

#define PRECIS_INSTANTIATE(Model, Config, family)                                         \
  template Generated generate<Model>(const Model&, const Tensor&, const Tensor&,          \
                                     const GenerationConfig&, const GenerateOptions&);    \
  template Generated generate<Model>(const Model&, std::span<const std::vector<int32_t>>, \
                                     const GenerationConfig&, const GenerateOptions&);
PRECIS_MODEL_FAMILIES(PRECIS_INSTANTIATE)
#undef PRECIS_INSTANTIATE

}  // namespace precis::generate
