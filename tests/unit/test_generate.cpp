// Logits processors, warpers, the sampler, BeamHypotheses / BeamSearchScorer bookkeeping and
// GenerationConfig resolution, each against values worked out by hand from transformers
// 4.44's code (generation/logits_process.py, beam_search.py, configuration_utils.py).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "precis/core/error.h"
#include "precis/core/torch_cpu_generator.h"
#include "precis/generate/beam_search.h"
#include "precis/generate/generation_config.h"
#include "precis/model/bart/bart_config.h"
#include "precis/generate/logits_processors.h"
#include "precis/kernels/cpu/logits_rows.h"
#include "precis/kernels/decoding_math.h"
#include "test_support.h"

namespace precis::generate {
namespace {

// The CPU twin's row functions (the decoding ops run them per row) and the shared draw.
using cpu::apply_repetition_penalty, cpu::apply_temperature, cpu::ban_bad_words,
    cpu::ban_repeated_ngrams, cpu::keep_top_k, cpu::keep_top_p, cpu::log_softmax,
    cpu::sample_from_scores, decoding_math::uniform;

constexpr float kInf = std::numeric_limits<float>::infinity();

ResolvedGeneration resolved(const nlohmann::json& settings) {
  BartConfig model;
  model.vocab_size = 10;
  GenerationConfig c = GenerationConfig::from_json(settings, "test");
  if (c.eos_token_id.empty()) c.eos_token_id = {2};
  if (!c.pad_token_id) c.pad_token_id = 1;
  return resolve(c, special_tokens(model));
}

// The processors of `g` on one row whose decoder tokens are `history`, through the op.
void process(const ResolvedGeneration& g, std::vector<int32_t> history, std::vector<float>& s) {
  Tensor scores{s.data(), Shape{1, int64_t(s.size())}, DType::F32, Device::cpu()};
  Tensor tokens{history.data(), Shape{1, int64_t(history.size()), 1}, DType::I32, Device::cpu()};
  next_token_scores(scores, tokens, int64_t(history.size()), logits_processing(g), Tensor{});
}

TEST(LogitsProcessors, RepetitionPenaltyDividesPositivesMultipliesNegativesOncePerId) {
  std::vector<float> s = {1.0f, -1.0f, 3.0f, 0.5f};
  std::vector<int32_t> history = {0, 1, 0, 2, 2};
  apply_repetition_penalty(history, 2.0f, s);
  EXPECT_EQ(s, (std::vector<float>{0.5f, -2.0f, 1.5f, 0.5f}));
}

TEST(LogitsProcessors, NoRepeatNGramBansCompletionsOfSeenNGrams) {
  std::vector<int32_t> history = {2, 0, 5, 6, 7, 5, 6};
  std::vector<float> s(10, 0.0f);
  ban_repeated_ngrams(history, 3, s);  // prefix (5, 6) was followed by 7
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s[i], i == 7 ? -kInf : 0.0f) << i;
  std::vector<float> t(10, 0.0f);
  ban_repeated_ngrams(history, 2, t);  // prefix (6) was followed by 7
  EXPECT_EQ(t[7], -kInf);
  EXPECT_EQ(t[5], 0.0f);
  // len(history) + 1 < n: nothing is banned, even an exact repeat.
  std::vector<int32_t> short_history = {2, 2};
  std::vector<float> u(10, 0.0f);
  ban_repeated_ngrams(short_history, 4, u);
  for (float x : u) EXPECT_EQ(x, 0.0f);
  // Bigrams count the start token: (2, 2) bans 2 after a 2.
  ban_repeated_ngrams(short_history, 2, u);
  EXPECT_EQ(u[2], -kInf);
}

TEST(LogitsProcessors, BadWordsBanSingleTokensAndCompletedPrefixes) {
  std::vector<std::vector<int32_t>> words = {{4}, {5, 6}, {7, 8, 9}, {1, 2, 3, 4, 5, 6, 7, 8}};
  std::vector<int32_t> history = {2, 0, 7, 5};
  std::vector<float> s(10, 1.0f);
  ban_bad_words(history, words, s);
  EXPECT_EQ(s[4], -kInf);  // always
  EXPECT_EQ(s[6], -kInf);  // history ends with 5
  EXPECT_EQ(s[9], 1.0f);   // needs (7, 8) at the end
  EXPECT_EQ(s[8], 1.0f);   // a word longer than the history is ignored
}

TEST(LogitsProcessors, BadWordEqualToEosIsDropped) {
  auto g = resolved({{"bad_words_ids", {{2}, {3}}}});
  std::vector<int32_t> history = {2, 0, 5};
  std::vector<float> s(10, 1.0f);
  process(g, history, s);
  EXPECT_EQ(s[2], 1.0f);
  EXPECT_EQ(s[3], -kInf);
}

TEST(LogitsProcessors, MinLengthAndMinNewTokensCountTheStartToken) {
  auto g = resolved({{"min_new_tokens", 2}, {"eos_token_id", {2, 3}}});
  EXPECT_EQ(g.config.min_length, 3);
  std::vector<float> s(10, 1.0f);
  std::vector<int32_t> two = {2, 0};
  process(g, two, s);
  EXPECT_EQ(s[2], -kInf);
  EXPECT_EQ(s[3], -kInf);
  std::vector<float> t(10, 1.0f);
  std::vector<int32_t> three = {2, 0, 5};
  process(g, three, t);
  EXPECT_EQ(t[2], 1.0f);
}

TEST(LogitsProcessors, ForcedTokensReplaceTheRowAfterBans) {
  // Forced BOS at length 1 gives exactly 0 even though a bad word bans it.
  auto g = resolved({{"forced_bos_token_id", 4},
                     {"bad_words_ids", {{4}}},
                     {"forced_eos_token_id", 2},
                     {"max_length", 5},
                     {"min_length", 9}});
  std::vector<float> s(10, 1.0f);
  std::vector<int32_t> start = {2};
  process(g, start, s);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s[i], i == 4 ? 0.0f : -kInf) << i;
  // Forced EOS at length max_length - 1 wins over min_length.
  std::vector<float> t(10, 1.0f);
  std::vector<int32_t> four = {2, 4, 5, 6};
  process(g, four, t);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(t[i], i == 2 ? 0.0f : -kInf) << i;
}

TEST(Warpers, TopKKeepsTiesAtTheThreshold) {
  std::vector<float> s = {1.0f, 3.0f, 2.0f, 2.0f, 0.0f};
  keep_top_k(2, 1, s);
  EXPECT_EQ(s, (std::vector<float>{-kInf, 3.0f, 2.0f, 2.0f, -kInf}));
  std::vector<float> t = {1.0f, 3.0f, 2.0f};
  keep_top_k(1, 2, t);  // min_tokens_to_keep raises k
  EXPECT_EQ(t, (std::vector<float>{-kInf, 3.0f, 2.0f}));
}

TEST(Warpers, TopPRemovesTheLowTailUpToOneMinusP) {
  // Probabilities 0.5, 0.3, 0.15, 0.05: cumulative from the lowest 0.05, 0.2, 0.5, 1.0.
  std::vector<float> s = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  std::vector<float> keep = s;
  keep_top_p(0.75, 1, keep);  // removes cumulative <= 0.25
  EXPECT_EQ(keep[0], s[0]);
  EXPECT_EQ(keep[1], s[1]);
  EXPECT_EQ(keep[2], -kInf);
  EXPECT_EQ(keep[3], -kInf);
  std::vector<float> tiny = s;
  keep_top_p(0.01, 1, tiny);  // only the most likely survives
  EXPECT_EQ(tiny[0], s[0]);
  EXPECT_EQ(tiny[1], -kInf);
  std::vector<float> two = s;
  keep_top_p(0.01, 2, two);  // unless min_keep protects more
  EXPECT_EQ(two[1], s[1]);
  EXPECT_EQ(two[2], -kInf);
}

TEST(Warpers, TemperatureDivides) {
  std::vector<float> s = {1.0f, -3.0f};
  apply_temperature(0.5f, s);
  EXPECT_EQ(s, (std::vector<float>{2.0f, -6.0f}));
}

TEST(Warpers, LogSoftmaxNormalises) {
  std::vector<float> s = {1.0f, 2.0f, 3.0f};
  log_softmax(s);
  double total = 0;
  for (float x : s) total += std::exp(double(x));
  EXPECT_NEAR(total, 1.0, 1e-6);
  EXPECT_NEAR(s[2] - s[1], 1.0f, 1e-6);
}

TEST(Sampling, DeterministicPerSeedAndRestrictedToTheSupport) {
  EXPECT_EQ(uniform(7, 3, 5), uniform(7, 3, 5));
  EXPECT_NE(uniform(7, 3, 5), uniform(8, 3, 5));
  EXPECT_NE(uniform(7, 3, 5), uniform(7, 4, 5));
  std::vector<float> s = {0.0f, 1.0f, 2.0f, 0.5f, 1.5f, -1.0f};
  keep_top_k(3, 1, s);  // support {1, 2, 4}
  std::vector<int> counts(s.size(), 0);
  const int n = 20000;
  for (int i = 0; i < n; ++i) counts[size_t(sample_from_scores(s, uniform(1, 0, uint64_t(i))))]++;
  EXPECT_EQ(counts[0] + counts[3] + counts[5], 0);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(1.5);
  EXPECT_NEAR(counts[2] / double(n), std::exp(2.0) / z, 0.015);
  EXPECT_NEAR(counts[1] / double(n), std::exp(1.0) / z, 0.015);
  std::vector<float> p = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  keep_top_p(0.75, 1, p);
  for (int i = 0; i < 2000; ++i) EXPECT_LT(sample_from_scores(p, uniform(2, 0, uint64_t(i))), 2);
  std::vector<float> none = {-kInf, -kInf};
  EXPECT_EQ(sample_from_scores(none, 0.5), -1);
}

// torch.manual_seed(0); torch.empty(3).exponential_() in float32 (torch 1.13 and 2.x); a seed
// of 2^32 gives the same (torch seeds its mt19937 with the low 32 bits).
TEST(TorchCpuGenerator, DrawsTorchsExponentials) {
  for (uint64_t seed : {uint64_t(0), uint64_t(1) << 32}) {
    TorchCpuGenerator g(seed);
    EXPECT_EQ(float(g.exponential()), 3.508326292037964f);
    EXPECT_EQ(float(g.exponential()), 1.2303847074508667f);
    EXPECT_EQ(float(g.exponential()), 0.615044116973877f);
  }
  TorchCpuGenerator g(0);
  EXPECT_EQ(g.random(), 2357136044u);  // std::mt19937(0)'s first two outputs
  EXPECT_EQ(g.random(), 2546248239u);
}

// torch.manual_seed(7), then six torch.multinomial(torch.softmax(s, -1), 1) on the two rows s:
// each draw takes 12 exponentials, row by row (column order would give other ids).
TEST(TorchCpuGenerator, MultinomialRowsAsTorch) {
  const std::vector<float> s = {0.0f, 1.0f, 2.0f, 0.5f, 1.5f, -1.0f,
                                0.3f, -0.2f, 1.1f, 0.0f, 0.9f, 0.4f};
  const std::vector<std::vector<int32_t>> torch_ids = {{1, 4}, {4, 0}, {4, 5},
                                                       {1, 2}, {2, 4}, {2, 4}};
  TorchCpuGenerator g(7);
  for (const auto& expected : torch_ids) {
    std::vector<double> u(s.size());
    for (double& x : u) x = g.uniform();
    std::vector<int32_t> ids;
    for (size_t r = 0; r < 2; ++r)
      ids.push_back(cpu::torch_multinomial_row(std::span<const float>(s).subspan(6 * r, 6),
                                               std::span<const double>(u).subspan(6 * r, 6)));
    EXPECT_EQ(ids, expected);
  }
  const std::vector<float> none = {-kInf, -kInf};
  const std::vector<double> u = {0.5, 0.5};
  EXPECT_EQ(cpu::torch_multinomial_row(none, u), -1);
}

TEST(BeamHypotheses, KeepsTheBestAndTracksTheWorst) {
  BeamHypotheses h(2, 1.0, EarlyStopping::kFalse, 20);
  h.add({2, 5}, -4.0f, 2);  // score -2
  EXPECT_DOUBLE_EQ(h.worst_score(), -2.0);
  h.add({2, 6}, -2.0f, 2);  // -1
  EXPECT_DOUBLE_EQ(h.worst_score(), -2.0);
  h.add({2, 7}, -9.0f, 3);  // -3: worse than the worst, full: not kept
  EXPECT_EQ(h.size(), 2u);
  h.add({2, 8}, -3.0f, 2);  // -1.5 replaces -2
  EXPECT_EQ(h.size(), 2u);
  EXPECT_DOUBLE_EQ(h.worst_score(), -1.5);
  EXPECT_EQ(h.hypotheses()[0].tokens, (std::vector<int32_t>{2, 6}));
  EXPECT_EQ(h.hypotheses()[1].tokens, (std::vector<int32_t>{2, 8}));
}

TEST(BeamHypotheses, LengthPenaltyUsesTheGeneratedLength) {
  BeamHypotheses h(1, 2.0, EarlyStopping::kTrue, 20);
  h.add({2, 0, 5}, -8.0f, 4);
  EXPECT_DOUBLE_EQ(h.hypotheses()[0].score, -0.5);
}

TEST(BeamHypotheses, IsDoneInTheThreeEarlyStoppingModes) {
  for (auto mode : {EarlyStopping::kTrue, EarlyStopping::kFalse, EarlyStopping::kNever}) {
    BeamHypotheses h(2, 1.0, mode, 11);
    h.add({2, 5}, -2.0f, 2);              // -1
    EXPECT_FALSE(h.is_done(0.0f, 3, 1));  // fewer than num_beams
    h.add({2, 6}, -4.0f, 2);              // -2 = worst
    if (mode == EarlyStopping::kTrue) {
      EXPECT_TRUE(h.is_done(0.0f, 3, 1));
    } else if (mode == EarlyStopping::kFalse) {
      // best running -5 at cur_len 3: -5 / 2 = -2.5 <= -2 -> done; -3 / 2 = -1.5 -> not.
      EXPECT_TRUE(h.is_done(-5.0f, 3, 1));
      EXPECT_FALSE(h.is_done(-3.0f, 3, 1));
    } else {
      // "never" with length_penalty > 0 divides by max_length - prompt = 10.
      EXPECT_FALSE(h.is_done(-5.0f, 3, 1));
      EXPECT_TRUE(h.is_done(-20.0f, 3, 1));
    }
  }
  BeamHypotheses negative(1, -1.0, EarlyStopping::kNever, 11);
  negative.add({2, 5}, -2.0f, 2);  // -2 * 2 = -4
  // length_penalty <= 0: the current length: -3 * 2 = -6 <= -4 -> done.
  EXPECT_TRUE(negative.is_done(-3.0f, 3, 1));
}

TEST(BeamSearchScorer, ProcessFinishesOnlyTopRankedEosAndFreezesDoneInputs) {
  auto g = resolved({{"num_beams", 2}, {"early_stopping", true}, {"max_length", 10}});
  BeamSearchScorer scorer(2, g);
  std::vector<std::vector<int32_t>> running = {{2, 5}, {2, 6}, {2, 7}, {2, 8}};
  // Input 0: EOS at rank 0 (finished), then 4, EOS at rank 2 (skipped: rank >= K), 3.
  // Input 1: EOS at ranks 0 and 1 (both finished: 2 hypotheses -> done), then 4, 3.
  std::vector<float> scores = {-1, -2, -3, -4, -1, -2, -3, -4};
  std::vector<int32_t> tokens = {2, 4, 2, 3, 2, 2, 4, 3};
  std::vector<int32_t> beams = {1, 0, 0, 1, 0, 1, 1, 0};
  BeamStep step = scorer.process(running, scores, tokens, beams, 4);
  EXPECT_EQ(step.tokens, (std::vector<int32_t>{4, 3, 4, 3}));
  EXPECT_EQ(step.source_rows, (std::vector<int32_t>{0, 1, 3, 2}));
  EXPECT_EQ(step.scores, (std::vector<float>{-2, -4, -3, -4}));
  EXPECT_EQ(scorer.hypotheses()[0].size(), 1u);
  EXPECT_EQ(scorer.hypotheses()[0].hypotheses()[0].tokens, (std::vector<int32_t>{2, 6}));
  EXPECT_FALSE(scorer.input_done(0));
  EXPECT_TRUE(scorer.input_done(1));
  // A done input gets pad tokens, score 0, all from row 0.
  std::vector<std::vector<int32_t>> next = {{2, 5, 4}, {2, 6, 3}, {2, 8, 4}, {2, 7, 3}};
  std::vector<float> s2 = {-2.5f, -3, -5, -6, -1, -2, -3, -4};
  std::vector<int32_t> t2 = {7, 8, 9, 6, 7, 8, 9, 6};
  std::vector<int32_t> b2 = {0, 1, 0, 1, 0, 0, 0, 0};
  BeamStep step2 = scorer.process(next, s2, t2, b2, 4);
  EXPECT_EQ(step2.tokens[2], g.pad_token_id);
  EXPECT_EQ(step2.tokens[3], g.pad_token_id);
  EXPECT_EQ(step2.source_rows[2], 0);
  EXPECT_EQ(step2.scores[3], 0.0f);
}

TEST(BeamSearchScorer, FinalizeAddsRunningBeamsAndPadsWithEosThenPad) {
  auto g = resolved(
      {{"num_beams", 2}, {"num_return_sequences", 2}, {"max_length", 6}, {"length_penalty", 1.0}});
  BeamSearchScorer scorer(1, g);
  std::vector<std::vector<int32_t>> running = {{2, 5}, {2, 6}};
  std::vector<float> scores = {-1, -9, -9, -9};
  std::vector<int32_t> tokens = {2, 4, 3, 7};
  std::vector<int32_t> beams = {0, 0, 1, 1};
  scorer.process(running, scores, tokens, beams, 4);  // finishes [2, 5] with -1 / 2
  std::vector<std::vector<int32_t>> last = {{2, 5, 4, 4, 4}, {2, 6, 3, 3, 3}};
  std::vector<float> last_scores = {-2.0f, -40.0f};
  auto out = scorer.finalize(last, last_scores);
  ASSERT_EQ(out.rows, 2);
  EXPECT_EQ(out.width, 6);  // min(longest 5 + 1, max_length 6)
  // [2, 5] and [2, 5, 4, 4, 4] both score -0.5: sorted() is stable and pop() takes the one
  // added last first.
  EXPECT_EQ(out.scores[0], -0.5);
  EXPECT_EQ(std::vector<int32_t>(out.sequences.begin(), out.sequences.begin() + 6),
            (std::vector<int32_t>{2, 5, 4, 4, 4, 2}));
  EXPECT_EQ(std::vector<int32_t>(out.sequences.begin() + 6, out.sequences.end()),
            (std::vector<int32_t>{2, 5, 2, 1, 1, 1}));
}

// A step whose best candidate ends: 4.44 bounds what the running beams can reach by that
// candidate's score, 5.x by the best one still running, so 5.x stops here and 4.44 does not.
TEST(BeamSearchScorer, Transformers5BoundsByTheBestCandidateStillRunning) {
  for (HfSemantics semantics : {HfSemantics::kV4_44, HfSemantics::kV5}) {
    auto g = resolved(
        {{"num_beams", 2}, {"early_stopping", false}, {"max_length", 20}, {"length_penalty", 1.0}});
    g.semantics = semantics;
    BeamSearchScorer scorer(1, g);
    std::vector<std::vector<int32_t>> running = {{2, 5}, {2, 6}};
    // EOS at ranks 0 and 1 finish (-1 / 2, -2 / 2: worst -1); 4 and 3 run on.
    std::vector<float> scores = {-1, -2, -2.5f, -3};
    std::vector<int32_t> tokens = {2, 2, 4, 3};
    std::vector<int32_t> beams = {0, 1, 0, 1};
    scorer.process(running, scores, tokens, beams, 4);
    EXPECT_EQ(scorer.hypotheses()[0].size(), 2u);
    // 4.44: -1 / 2 = -0.5 > -1, not done; 5.x: -2.5 / 2 = -1.25 <= -1, done.
    EXPECT_EQ(scorer.input_done(0), semantics == HfSemantics::kV5);
  }
}

// 5.x fills its rows with `pad_token_id or eos_token_id[0]`: T5's pad 0 gives EOS.
TEST(BeamSearchScorer, Transformers5FillsWithEosWherePadIsZero) {
  for (HfSemantics semantics : {HfSemantics::kV4_44, HfSemantics::kV5}) {
    auto g = resolved({{"num_beams", 2},
                       {"num_return_sequences", 2},
                       {"max_length", 6},
                       {"pad_token_id", 0},
                       {"eos_token_id", 1},
                       {"length_penalty", 1.0}});
    g.semantics = semantics;
    BeamSearchScorer scorer(1, g);
    std::vector<std::vector<int32_t>> running = {{0, 5}, {0, 6}};
    scorer.process(running, std::vector<float>{-1, -9, -9, -9}, std::vector<int32_t>{1, 4, 3, 7},
                   std::vector<int32_t>{0, 0, 1, 1}, 4);  // finishes [0, 5]
    std::vector<std::vector<int32_t>> last = {{0, 5, 4, 4, 4}, {0, 6, 3, 3, 3}};
    auto out = scorer.finalize(last, std::vector<float>{-2.0f, -40.0f});
    const int32_t fill = semantics == HfSemantics::kV5 ? 1 : 0;
    EXPECT_EQ(std::vector<int32_t>(out.sequences.begin() + 6, out.sequences.end()),
              (std::vector<int32_t>{0, 5, 1, fill, fill, fill}));
  }
}

TEST(GenerationConfig, ParsesHfValuesAndResolvesLengths) {
  auto c = GenerationConfig::from_json(
      nlohmann::json::parse(R"({"early_stopping": "never", "eos_token_id": [2, 3],
        "forced_eos_token_id": 2, "max_new_tokens": 7, "bad_words_ids": [[4], [5, 6]],
        "unknown_key": 1})"),
      "test");
  EXPECT_EQ(c.early_stopping, EarlyStopping::kNever);
  EXPECT_EQ(c.eos_token_id, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(c.forced_eos_token_id, (std::vector<int32_t>{2}));
  BartConfig model;
  auto r = resolve(c, special_tokens(model));
  EXPECT_EQ(r.config.max_length, 8);  // max_new_tokens + the start token
  EXPECT_EQ(r.decoder_start_token_id, 2);
  EXPECT_EQ(r.pad_token_id, 2);  // no pad: the first EOS, as HF
  EXPECT_THROW(
      GenerationConfig::from_json(nlohmann::json::parse(R"({"early_stopping": "soon"})"), "t"),
      Error);
  GenerationConfig greedy;
  greedy.num_return_sequences = 2;
  EXPECT_THROW(resolve(greedy, special_tokens(model)), Error);
  GenerationConfig beams;
  beams.num_beams = 2;
  beams.num_return_sequences = 3;
  EXPECT_THROW(resolve(beams, special_tokens(model)), Error);
}

TEST(GenerationConfig, PrecedenceOfGenerationConfigJsonAndLegacyKeys) {
  precis::testing::TempDir temp("precis_test_generation_config");
  const std::filesystem::path& dir = temp.path();
  BartConfig model;
  std::ofstream(dir / "config.json")
      << R"({"model_type": "bart", "num_beams": 4, "max_length": 142})";
  auto legacy = GenerationConfig::from_model_directory(dir, special_tokens(model));
  EXPECT_EQ(legacy.num_beams, 4);
  EXPECT_EQ(legacy.forced_eos_token_id, (std::vector<int32_t>{2}));
  // Derived from the model config: config.json's generation keys win.
  std::ofstream(dir / "generation_config.json")
      << R"({"_from_model_config": true, "num_beams": 2})";
  EXPECT_EQ(GenerationConfig::from_model_directory(dir, special_tokens(model)).num_beams, 4);
  // Written on purpose: it wins.
  std::ofstream(dir / "generation_config.json") << R"({"num_beams": 2})";
  auto file = GenerationConfig::from_model_directory(dir, special_tokens(model));
  EXPECT_EQ(file.num_beams, 2);
  EXPECT_EQ(file.max_length, 20);
}

}  // namespace
}  // namespace precis::generate
