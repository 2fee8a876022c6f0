// The decoding ops (kernels/decoding.h) on every backend against the CPU twin run on host
// copies of the same inputs: the processors, greedy and sampled choices, and beam search's
// candidates. Each case is built so that its processor or warper changes the result (checked
// on the CPU first), so a twin that skips one fails. Everything is bit-equal except beam
// search's log-softmax, whose double sum the CUDA twin adds in a tree (1e-6).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernel_test.h"
#include "precis/kernels/cpu/logits_rows.h"
#include "precis/kernels/decoding.h"
#include "precis/kernels/decoding_math.h"

using namespace precis;
using namespace precis::testing;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor on_host(std::vector<float>& v, Shape shape) {
  return Tensor{v.data(), shape, DType::F32, Device::cpu()};
}
Tensor on_host(std::vector<int32_t>& v, Shape shape) {
  return Tensor{v.data(), shape, DType::I32, Device::cpu()};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Scores in [-3, 3) with ties, and some -inf.
std::vector<float> logits(int64_t n, std::mt19937& rng) {
  std::vector<float> s = random_floats(n, rng, -3.0f, 3.0f);
  for (int64_t k = 0; k < n / 5; ++k) s[rng() % size_t(n)] = s[rng() % size_t(n)];
  for (int64_t k = 0; k < n / 11; ++k) s[rng() % size_t(n)] = -kInf;
  return s;
}

// Histories (rows, capacity) that end in a repeated bigram (5, x) after (5, 7) and (5, 9), so
// that an n-gram ban of size 2 bans 7 and 9; the ids repeat (repetition penalty once per id)
// and the last tokens (9, 5) start the bad words below.
std::vector<int32_t> histories(int64_t rows, int64_t capacity) {
  const std::vector<int32_t> base{0, 5, 7, 3, 5, 9, 5, 4, 4, 2};
  std::vector<int32_t> h(size_t(rows * capacity));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t t = 0; t < capacity; ++t)
      h[size_t(r * capacity + t)] = base[size_t(t) % base.size()] + int32_t(r % 2);
  return h;
}

class DecodingKernel : public KernelTest {
 protected:
  std::vector<int32_t> ids_to_host(const Tensor& t) {
    std::vector<int32_t> out(size_t(t.numel()));
    copy(t, on_host(out, t.shape));
    return out;
  }

  // next_token_scores on the backend, and the CPU twin on host copies.
  std::vector<float> processed_here(const std::vector<float>& scores, int64_t vocab,
                                    const std::vector<int32_t>& history, int64_t length,
                                    const LogitsProcessing& p, const std::vector<float>* beam) {
    const int64_t rows = int64_t(scores.size()) / vocab;
    const int64_t capacity = int64_t(history.size()) / rows;
    Tensor s = on_device(scores, {rows, vocab});
    Tensor b = beam ? on_device(*beam, {rows}) : Tensor{};
    next_token_scores(s, on_device(history, {rows, capacity, 1}), length, p, b);
    return to_host(s);
  }
  static std::vector<float> processed_on_cpu(std::vector<float> scores, int64_t vocab,
                                             std::vector<int32_t> history, int64_t length,
                                             const LogitsProcessing& p, std::vector<float>* beam) {
    const int64_t rows = int64_t(scores.size()) / vocab;
    const int64_t capacity = int64_t(history.size()) / rows;
    next_token_scores(on_host(scores, {rows, vocab}), on_host(history, {rows, capacity, 1}), length,
                      p, beam ? on_host(*beam, {rows}) : Tensor{});
    return scores;
  }

  // choose_tokens on the backend (tokens, then the scores it leaves), and on the CPU.
  std::pair<std::vector<int32_t>, std::vector<float>> chosen_here(const std::vector<float>& scores,
                                                                  int64_t vocab,
                                                                  const LogitsWarping* w,
                                                                  uint64_t seed, uint64_t counter) {
    const int64_t rows = int64_t(scores.size()) / vocab;
    Tensor s = on_device(scores, {rows, vocab});
    Tensor tokens = on_device(std::vector<int32_t>(size_t(rows), -7), {rows});
    TorchCpuGenerator generator(seed);
    choose_tokens(s, w, generator, counter, tokens);
    return {ids_to_host(tokens), to_host(s)};
  }
  static std::pair<std::vector<int32_t>, std::vector<float>> chosen_on_cpu(
      std::vector<float> scores, int64_t vocab, const LogitsWarping* w, uint64_t seed,
      uint64_t counter) {
    const int64_t rows = int64_t(scores.size()) / vocab;
    std::vector<int32_t> tokens(size_t(rows), -7);
    TorchCpuGenerator generator(seed);
    choose_tokens(on_host(scores, {rows, vocab}), w, generator, counter, on_host(tokens, {rows}));
    return {tokens, scores};
  }

  // Every processor config of `cases` on the backend against the CPU, greedy and beam.
  void expect_processing_matches(const std::vector<float>& scores, int64_t vocab,
                                 const std::vector<int32_t>& history, int64_t length,
                                 const LogitsProcessing& p, const std::string& what) {
    const int64_t rows = int64_t(scores.size()) / vocab;
    const std::vector<float> plain = processed_on_cpu(scores, vocab, history, length, {}, nullptr);
    const std::vector<float> expected =
        processed_on_cpu(scores, vocab, history, length, p, nullptr);
    ASSERT_FALSE(same_bits(expected, plain)) << what << ": the case changes nothing";
    EXPECT_TRUE(same_bits(processed_here(scores, vocab, history, length, p, nullptr), expected))
        << what << " (greedy)";

    std::vector<float> running(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) running[size_t(r)] = -0.25f * float(r);
    const std::vector<float> beam_expected =
        processed_on_cpu(scores, vocab, history, length, p, &running);
    const std::vector<float> beam = processed_here(scores, vocab, history, length, p, &running);
    ASSERT_EQ(beam.size(), beam_expected.size());
    for (size_t i = 0; i < beam.size(); ++i) {
      if (std::isinf(beam_expected[i]))
        EXPECT_EQ(beam[i], beam_expected[i]) << what << " (beam) element " << i;
      else
        EXPECT_NEAR(beam[i], beam_expected[i], 1e-6 * std::max(1.0f, std::abs(beam_expected[i])))
            << what << " (beam) element " << i;
    }
  }
};

}  // namespace

// Each processor alone, then all of them, on a narrow vocabulary and one wider than a block.
TEST_P(DecodingKernel, EveryProcessorMatchesTheCpu) {
  std::mt19937 rng(11);
  for (int64_t vocab : {37, 300}) {
    const int64_t rows = 3, capacity = 9, length = 7;
    const std::vector<float> scores = logits(rows * vocab, rng);
    const std::vector<int32_t> history = histories(rows, capacity);
    const std::string at = " at vocab " + std::to_string(vocab);

    LogitsProcessing penalty;
    penalty.repetition_penalty = 1.7f;
    expect_processing_matches(scores, vocab, history, length, penalty, "repetition penalty" + at);

    LogitsProcessing ngram;
    ngram.no_repeat_ngram_size = 2;
    expect_processing_matches(scores, vocab, history, length, ngram, "n-gram ban" + at);

    // 11 always; 13 after 5 and 14 after 9, 5 (rows 0, 2); 12 after 6 and 14 after 10, 6
    // (row 1); a word whose prefix is not the history's end, and one longer than the history.
    LogitsProcessing bad;
    bad.bad_words = {
        {11}, {5, 13}, {6, 12}, {9, 5, 14}, {10, 6, 14}, {6, 13, 15}, {1, 2, 3, 4, 5, 6, 7, 8}};
    expect_processing_matches(scores, vocab, history, length, bad, "bad words" + at);

    LogitsProcessing min_length;
    min_length.eos_token_ids = {2, 3, int32_t(vocab - 1)};
    min_length.min_length = length + 1;
    expect_processing_matches(scores, vocab, history, length, min_length, "min length" + at);
    LogitsProcessing min_new = min_length;
    min_new.min_length = 0;
    min_new.prompt_length = 2, min_new.min_new_tokens = length - 1;
    expect_processing_matches(scores, vocab, history, length, min_new, "min new tokens" + at);

    LogitsProcessing forced_bos;
    forced_bos.forced_bos_token_id = 4;
    expect_processing_matches(scores, vocab, history, 1, forced_bos, "forced BOS" + at);
    LogitsProcessing forced_eos;
    forced_eos.forced_eos_token_ids = {2, 6};
    forced_eos.max_length = length + 1;
    expect_processing_matches(scores, vocab, history, length, forced_eos, "forced EOS" + at);

    LogitsProcessing all = bad;
    all.repetition_penalty = 0.8f, all.no_repeat_ngram_size = 2;  // bans penalised ids
    all.eos_token_ids = {2}, all.min_length = 20, all.min_new_tokens = 3, all.prompt_length = 1;
    all.forced_eos_token_ids = {1}, all.max_length = 30;
    expect_processing_matches(scores, vocab, history, length, all, "all processors" + at);
  }
}

// Rows that are -inf throughout stay so (the log-softmax leaves them alone), and a row that is
// -inf but for one id keeps it at 0 before its running score.
TEST_P(DecodingKernel, InfiniteRowsMatchTheCpu) {
  const int64_t vocab = 41, rows = 2, capacity = 4;
  std::vector<float> scores(size_t(rows * vocab), -kInf);
  scores[size_t(vocab + 17)] = 2.5f;
  std::vector<int32_t> history = histories(rows, capacity);
  std::vector<float> running{-1.0f, -2.0f};
  LogitsProcessing p;
  p.repetition_penalty = 1.3f;
  const std::vector<float> expected = processed_on_cpu(scores, vocab, history, 3, p, &running);
  EXPECT_EQ(expected[size_t(vocab + 17)], -2.0f);
  EXPECT_TRUE(same_bits(processed_here(scores, vocab, history, 3, p, &running), expected));
}

// The first of equal maxima wins; a row of -inf chooses 0, as std::max_element does.
TEST_P(DecodingKernel, GreedyChoosesTheFirstArgmax) {
  std::mt19937 rng(5);
  for (int64_t vocab : {7, 37, 300, 1000}) {
    const int64_t rows = 4;
    std::vector<float> scores = logits(rows * vocab, rng);
    scores[size_t(vocab - 1)] = scores[size_t(vocab / 2)] = 9.0f;  // row 0: a tie at the top
    for (int64_t j = 0; j < vocab; ++j) scores[size_t(vocab + j)] = -kInf;     // row 1
    for (int64_t j = 0; j < vocab; ++j) scores[size_t(2 * vocab + j)] = 1.0f;  // row 2
    const auto [tokens, left] = chosen_here(scores, vocab, nullptr, 0, 0);
    EXPECT_EQ(tokens, chosen_on_cpu(scores, vocab, nullptr, 0, 0).first) << vocab;
    EXPECT_EQ(tokens[0], vocab / 2);
    EXPECT_EQ(tokens[1], 0);
    EXPECT_EQ(tokens[2], 0);
    EXPECT_TRUE(same_bits(left, scores)) << "greedy leaves the scores as they were";
  }
}

// Temperature, top-k (ties at the threshold), top-p (min_keep), each and together: the warped
// scores are the CPU's bits and the drawn ids the CPU's. Each case draws with its own seed and
// counter; one draws with several counters. (The emulator runs a thread per CUDA thread, so
// the cases are few and the rows short.)
TEST_P(DecodingKernel, SamplingWarpsAndDrawsAsTheCpu) {
  std::mt19937 rng(23);
  auto warping = [](float temperature, int64_t top_k, double top_p, int64_t min_keep) {
    LogitsWarping w;
    w.temperature = temperature, w.top_k = top_k, w.top_p = top_p, w.min_keep = min_keep;
    return w;
  };
  const std::vector<LogitsWarping> cases{warping(0.7f, 0, 1.0, 1),  warping(1.0f, 5, 1.0, 1),
                                         warping(1.0f, 1, 1.0, 3),  warping(1.0f, 0, 0.6, 1),
                                         warping(1.0f, 0, 0.05, 4), warping(0.5f, 12, 0.9, 1),
                                         warping(1.3f, 40, 0.75, 2)};
  for (int64_t vocab : {7, 37, 300}) {
    const int64_t rows = 3;
    std::vector<float> scores = logits(rows * vocab, rng);
    for (int64_t j = 0; j < vocab; ++j) scores[size_t(vocab + j)] = -kInf;  // row 1 draws -1
    for (int64_t j = 0; j < 6; ++j) scores[size_t(j * 5 % vocab)] = 2.75f;  // top-k ties
    for (size_t c = vocab == 300 ? 5 : 0; c < cases.size(); ++c) {
      const std::string what = "case " + std::to_string(c) + " at vocab " + std::to_string(vocab);
      const LogitsWarping& w = cases[c];
      std::vector<float> unwarped = scores;
      for (float& x : unwarped) x /= w.temperature;
      const uint64_t seed = 3 + c;
      const std::vector<uint64_t> counters =
          c == 3 && vocab == 37 ? std::vector<uint64_t>{1, 2, 3, 4} : std::vector<uint64_t>{9};
      for (uint64_t counter : counters) {
        const auto cpu = chosen_on_cpu(scores, vocab, &w, seed, counter);
        if (w.temperature == 1.0f && vocab > 7) {
          EXPECT_FALSE(same_bits(cpu.second, unwarped)) << what << " keeps every token";
        }
        const auto here = chosen_here(scores, vocab, &w, seed, counter);
        // The CPU draws torch's stream; the CUDA twin its own (decoding.h): its ids are the
        // reference draw's from the CPU's warped scores.
        std::vector<int32_t> expected = cpu.first;
        if (device().kind != DeviceKind::CPU)
          for (int64_t r = 0; r < rows; ++r)
            expected[size_t(r)] = cpu::sample_from_scores(
                std::span<const float>(cpu.second).subspan(size_t(r * vocab), size_t(vocab)),
                decoding_math::uniform(seed, uint64_t(r), counter));
        EXPECT_EQ(here.first, expected) << what << " counter " << counter;
        EXPECT_TRUE(same_bits(here.second, cpu.second)) << what << ": the warped scores";
        EXPECT_EQ(here.first[1], -1) << what;
      }
    }
  }
}

// The best n of each input's `width` scores as a stable sort by descending score gives them
// (equal scores by lower index).
void expect_top_n_by_stable_sort(const std::vector<float>& scores, int64_t inputs, int64_t width,
                                 int64_t n, const std::vector<float>& values,
                                 const std::vector<int32_t>& indices) {
  for (int64_t i = 0; i < inputs; ++i) {
    std::vector<int32_t> order(static_cast<size_t>(width));
    for (int64_t j = 0; j < width; ++j) order[size_t(j)] = int32_t(j);
    const float* item = scores.data() + i * width;
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return item[a] > item[b]; });
    for (int64_t k = 0; k < std::min(n, width); ++k) {
      EXPECT_EQ(indices[size_t(i * n + k)], order[size_t(k)]) << "input " << i << " rank " << k;
      EXPECT_EQ(values[size_t(i * n + k)], item[order[size_t(k)]])
          << "input " << i << " rank " << k;
    }
  }
}

// The CPU passes over a block of 64 scores none of which beats the worst kept once it holds n:
// scores drawn from a few values (ties everywhere, within and across blocks, equal to the worst
// kept), -inf among them, over widths off the block's multiples; against a stable sort.
TEST_P(DecodingKernel, TopCandidatesWithTiesAcrossBlocks) {
  std::mt19937 rng(32);
  for (int64_t width : {63, 64, 65, 700, 4099}) {
    const int64_t inputs = 3, n = 8;
    std::vector<float> scores(size_t(inputs * width));
    std::uniform_int_distribution<int> level(0, 9);
    for (float& x : scores) {
      const int l = level(rng);
      x = l == 0 ? -INFINITY : 0.5f * float(l);
    }
    // Bests that keep arriving, every 67th score (so at every offset within a block, its last
    // included): each must displace the worst kept.
    for (int64_t i = 0; i < inputs; ++i)
      for (int64_t at = 66 - i; at < width; at += 67)
        scores[size_t(i * width + at)] = 5.0f + float(at);
    std::vector<float> values(size_t(inputs * n));
    std::vector<int32_t> indices(values.size());
    top_candidates(on_host(scores, {inputs, width}), 1, n, on_host(values, {inputs, n}),
                   on_host(indices, {inputs, n}));
    expect_top_n_by_stable_sort(scores, inputs, width, n, values, indices);
    Tensor v = filled({inputs, n}),
           ix = on_device(std::vector<int32_t>(indices.size()), {inputs, n});
    top_candidates(on_device(scores, {inputs, width}), 1, n, v, ix);
    EXPECT_EQ(ids_to_host(ix), indices) << width;
  }
}

// Beam search's candidates: the best n of each input's group·V flat scores, descending, equal
// scores by lower flat index (ties across beams and -inf included), up to every score.
TEST_P(DecodingKernel, TopCandidatesAreTopNInOrder) {
  std::mt19937 rng(31);
  struct Case {
    int64_t inputs, group, vocab, n;
  };
  for (Case c : {Case{2, 3, 37, 7}, Case{3, 4, 129, 8}, Case{1, 2, 5, 10}, Case{2, 1, 300, 1}}) {
    const int64_t width = c.group * c.vocab;
    std::vector<float> scores = logits(c.inputs * width, rng);
    for (int64_t i = 0; i < c.inputs; ++i) {  // the best score on two beams, twice on one
      float* item = scores.data() + i * width;
      item[c.vocab - 1] = item[(c.group - 1) * c.vocab] = item[2] = 5.5f;
    }
    std::vector<float> values(size_t(c.inputs * c.n));
    std::vector<int32_t> indices(values.size());
    top_candidates(on_host(scores, {c.inputs * c.group, c.vocab}), c.group, c.n,
                   on_host(values, {c.inputs, c.n}), on_host(indices, {c.inputs, c.n}));
    Tensor v = filled({c.inputs, c.n}),
           ix = on_device(std::vector<int32_t>(indices.size()), {c.inputs, c.n});
    top_candidates(on_device(scores, {c.inputs * c.group, c.vocab}), c.group, c.n, v, ix);
    EXPECT_TRUE(same_bits(to_host(v), values)) << c.vocab;
    EXPECT_EQ(ids_to_host(ix), indices) << c.vocab;
    expect_top_n_by_stable_sort(scores, c.inputs, width, c.n, values, indices);
    if (c.n >= 3) {
      EXPECT_EQ(indices[0], 2);
      EXPECT_EQ(indices[1], int32_t(std::min(c.vocab - 1, (c.group - 1) * c.vocab)));
    }
  }
}

INSTANTIATE_KERNEL_TEST(DecodingKernel);
