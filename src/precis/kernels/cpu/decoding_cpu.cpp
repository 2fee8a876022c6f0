#include <algorithm>
#include <span>
#include <vector>

#include "precis/core/torch_cpu_generator.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cpu/logits_rows.h"

namespace precis::cpu {

namespace {

// The best `n` of (score, flat index) in descending order; equal scores by lower index.
struct TopN {
  std::vector<float> scores;
  std::vector<int64_t> indices;
  size_t capacity;
  explicit TopN(size_t n) : capacity(n) { scores.reserve(n + 1), indices.reserve(n + 1); }
  void offer(float s, int64_t i) {
    if (scores.size() == capacity && !(s > scores.back())) return;  // later index loses ties
    size_t pos = scores.size();
    while (pos > 0 && s > scores[pos - 1]) --pos;
    scores.insert(scores.begin() + std::ptrdiff_t(pos), s);
    indices.insert(indices.begin() + std::ptrdiff_t(pos), i);
    if (scores.size() > capacity) scores.pop_back(), indices.pop_back();
  }
  // Offers item[begin, end) in order. Once full, a block none of whose scores beats the worst
  // kept is passed over whole (offer would refuse each: the worst only rises): a vector compare
  // instead of a branch per score, for the beam candidates' scan of num_beams x vocab scores.
  void offer_all(const float* item, int64_t begin, int64_t end) {
    constexpr int64_t kBlock = 64;
    int64_t j = begin;
    for (; j < end && scores.size() < capacity; ++j) offer(item[j], j);
    while (j < end) {
      const int64_t stop = std::min(end, j + kBlock);
      const float worst = scores.back();
      int any = 0;
#pragma omp simd reduction(| : any)
      for (int64_t x = j; x < stop; ++x) any |= int(item[x] > worst);
      if (any)
        for (int64_t x = j; x < stop; ++x) offer(item[x], x);
      j = stop;
    }
  }
};

}  // namespace

void next_token_scores(float* scores, int64_t rows, int64_t vocab, const int32_t* history,
                       int64_t history_capacity, int64_t length, const LogitsProcessing& p,
                       const float* beam_scores) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    std::span<float> row(scores + r * vocab, size_t(vocab));
    if (beam_scores) log_softmax(row);
    process_row(p, std::span<const int32_t>(history + r * history_capacity, size_t(length)), row);
    if (beam_scores) {
      const float running = beam_scores[r];
      float* values = row.data();
#pragma omp simd simdlen(16)
      for (int64_t v = 0; v < vocab; ++v) values[v] = values[v] + running;
    }
  }
}

void choose_tokens(float* scores, int64_t rows, int64_t vocab, const LogitsWarping* sampling,
                   TorchCpuGenerator& generator, int32_t* tokens) {
  // torch.multinomial fills one (rows, vocab) tensor of exponentials per step, element by
  // element in row order, whichever rows are finished: the draws are taken first, on one
  // thread, so the rows can then be chosen in parallel.
  std::vector<double> uniforms;
  if (sampling) {
    uniforms.resize(size_t(rows * vocab));
    for (double& u : uniforms) u = generator.uniform();
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    std::span<float> row(scores + r * vocab, size_t(vocab));
    if (sampling) {
      warp_row(*sampling, row);
      const std::span<const double> draws(uniforms.data() + r * vocab, size_t(vocab));
      tokens[r] = torch_multinomial_row(row, draws);
    } else {
      tokens[r] = int32_t(std::max_element(row.begin(), row.end()) - row.begin());  // first max
    }
  }
}

void top_candidates(const float* scores, int64_t inputs, int64_t width, int64_t n, float* values,
                    int32_t* indices) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < inputs; ++i) {
    TopN top(static_cast<size_t>(n));
    const float* item = scores + i * width;
    top.offer_all(item, 0, width);
    for (int64_t k = 0; k < n; ++k) {
      values[i * n + k] = top.scores[size_t(k)];
      indices[i * n + k] = int32_t(top.indices[size_t(k)]);
    }
  }
}

}  // namespace precis::cpu
