// The CUDA twin of the decoding ops (kernels/decoding.h): the kernels of decoding_kernels.cuh.
// LogitsProcessing's lists are host vectors; next_token_scores packs them into one I32 buffer
// and copies it into the scratch buffer in stream order, so the host never reads the device
// (a copy from pageable host memory has read its source when it returns, so the vector may go).
// Sampling with top-p sorts each row in the scratch buffer.
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/cuda/decoding_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

void check_grid(const char* op, int64_t blocks) {
  check(blocks <= 0x7fffffff, std::string(op) + " on CUDA: " + std::to_string(blocks) +
                                  " rows are over the grid's 2^31 - 1");
}

void next_token_scores(float* scores, int64_t rows, int64_t vocab, const int32_t* history,
                       int64_t capacity, int64_t length, const LogitsProcessing& p,
                       const float* beam_scores, Stream s) {
  if (rows == 0) return;
  check_grid("next_token_scores", rows);
  // Packed: eos ids, forced eos ids, the forced BOS, the bad words' starts, their tokens.
  std::vector<int32_t> packed(p.eos_token_ids.begin(), p.eos_token_ids.end());
  const size_t forced_eos_at = packed.size();
  packed.insert(packed.end(), p.forced_eos_token_ids.begin(), p.forced_eos_token_ids.end());
  const size_t forced_bos_at = packed.size();
  if (p.forced_bos_token_id) packed.push_back(*p.forced_bos_token_id);
  const size_t starts_at = packed.size();
  int32_t start = 0;
  for (const auto& word : p.bad_words) {
    packed.push_back(start);
    start += int32_t(word.size());
  }
  packed.push_back(start);
  const size_t tokens_at = packed.size();
  for (const auto& word : p.bad_words) packed.insert(packed.end(), word.begin(), word.end());

  auto* lists = static_cast<int32_t*>(scratch(s, packed.size() * sizeof(int32_t)));
  copy_async(lists, packed.data(), packed.size() * sizeof(int32_t), s);
  ProcessingArgs a{};
  a.repetition_penalty = p.repetition_penalty;
  a.no_repeat_ngram_size = p.no_repeat_ngram_size;
  a.bad_word_starts = lists + starts_at;
  a.bad_word_tokens = lists + tokens_at;
  a.bad_words = int64_t(p.bad_words.size());
  a.eos_ids = lists;
  a.eos_count = int64_t(p.eos_token_ids.size());
  a.min_length = p.min_length;
  a.min_new_tokens = p.min_new_tokens;
  a.prompt_length = p.prompt_length;
  a.forced_bos = p.forced_bos_token_id ? lists + forced_bos_at : nullptr;
  a.forced_eos_ids = lists + forced_eos_at;
  a.forced_eos_count = int64_t(p.forced_eos_token_ids.size());
  a.max_length = p.max_length;
  // Each row's scores read and written (log-softmax: max, exp, sum, about 10 operations a
  // score) and its history scanned once per n-gram position; the lists and the beam scores.
  const double row_work = double(vocab) * 10 + double(length) * double(std::max<int64_t>(1, p.no_repeat_ngram_size));
  declare_cost({double(rows) * (double(vocab) * sizeof(float) + double(length) * sizeof(int32_t) + sizeof(float)) +
                    double(packed.size()) * sizeof(int32_t),
                double(rows * vocab) * sizeof(float), double(rows) * row_work, 0});
  PRECIS_LAUNCH(next_token_scores_kernel, dim3{unsigned(rows)}, dim3{kDecodingThreads}, s, scores,
                vocab, history, capacity, length, a, beam_scores);
}

// The sort's slots per row: the power of two at or above vocab.
int64_t sort_width(int64_t vocab) {
  int64_t width = 1;
  while (width < vocab) width *= 2;
  return width;
}

void choose_tokens(float* scores, int64_t rows, int64_t vocab, const LogitsWarping* sampling,
                   uint64_t seed, uint64_t counter, int32_t* tokens, Stream s) {
  if (rows == 0) return;
  check_grid("choose_tokens", rows);
  if (!sampling) {
    declare_cost({double(rows * vocab) * sizeof(float), double(rows) * sizeof(int32_t), double(rows * vocab), 0});
    PRECIS_LAUNCH(choose_greedy_kernel, dim3{unsigned(rows)}, dim3{kDecodingThreads}, s, scores,
                  vocab, tokens);
    return;
  }
  SamplingArgs a{};
  a.temperature = sampling->temperature, a.top_k = sampling->top_k;
  a.top_p = sampling->top_p, a.min_keep = sampling->min_keep;
  a.seed = seed, a.counter = counter;
  if (sampling->top_p < 1.0) {
    a.sort_width = sort_width(vocab);
    const size_t slots = size_t(rows * a.sort_width);
    auto* buffer = static_cast<char*>(scratch(s, slots * (sizeof(float) + sizeof(int32_t))));
    a.sort_scores = reinterpret_cast<float*>(buffer);
    a.sort_ids = reinterpret_cast<int32_t*>(buffer + slots * sizeof(float));
  }
  // Temperature, top-k by a radix select, and with top-p a bitonic sort of each row's
  // sort_width slots (log2² passes over them).
  const double sort_bytes = double(rows * a.sort_width) * (sizeof(float) + sizeof(int32_t));
  double passes = 0;
  for (int64_t w = 2; w <= a.sort_width; w *= 2) passes += double(64 - __builtin_clzll(uint64_t(w)) - 1);
  declare_cost({double(rows * vocab) * sizeof(float) + sort_bytes,
                double(rows * vocab) * sizeof(float) + double(rows) * sizeof(int32_t) + sort_bytes,
                double(rows * vocab) * 20 + double(rows * a.sort_width) * passes, 0});
  PRECIS_LAUNCH(choose_sampled_kernel, dim3{unsigned(rows)}, dim3{kDecodingThreads}, s, scores,
                vocab, a, tokens);
}

void top_candidates(const float* scores, int64_t inputs, int64_t width, int64_t n, float* values,
                    int32_t* indices, Stream s) {
  if (inputs == 0) return;
  check_grid("top_candidates", inputs);
  // A radix select over each input's scores (a pass a digit), then its n best in order.
  declare_cost({double(inputs * width) * sizeof(float),
                double(inputs * n) * (sizeof(float) + sizeof(int32_t)), double(inputs * width) * 12, 0});
  PRECIS_LAUNCH(top_candidates_kernel, dim3{unsigned(inputs)}, dim3{kDecodingThreads}, s, scores,
                width, n, values, indices);
}

}  // namespace

void add_decoding_twins(Kernels& k) {
  k.next_token_scores = next_token_scores;
  k.choose_tokens = choose_tokens;
  k.top_candidates = top_candidates;
}

}  // namespace precis::cuda
