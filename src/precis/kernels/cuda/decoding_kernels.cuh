// The CUDA twin's kernels of the decoding ops (kernels/decoding.h), one block per row (per
// input for the candidates), kDecodingThreads threads, each output element written by one
// thread, reductions in shared memory in a fixed order: no atomics.
//
// - next_token_scores_kernel: beam search's log-softmax (max and sum of exp in double by trees,
//   so the sum differs from the CPU's sequential one in the order of additions only), then the
//   processors in _get_logits_processor's order with a barrier between each: the repetition
//   penalty by every thread over the history positions (a position acts only at its id's first
//   occurrence, so each id is penalised once, from its original score), the n-gram, bad-word
//   and minimum-length bans by thread 0 walking the (short) history and lists, the forced
//   tokens as a fill and thread 0's zeros; then the running beam score.
// - choose_greedy_kernel: the first argmax, a tree over (score, index).
// - choose_sampled_kernel: temperature; top-k's threshold, the k-th largest score, by a radix
//   select over the scores' order-preserving 32-bit keys (8 counting passes); top-p's stable
//   ascending order by a bitonic sort of (score, index) in global scratch, then thread 0 runs
//   decoding_math::remove_top_p and the draw, the CPU's own loops, so the kept set and the
//   drawn id are the CPU's (those two walks are serial: O(V) per row on one thread).
// - top_candidates_kernel: n rounds of a block-wide argmax over the scores ordered after the
//   previous round's pick (score descending, then flat index ascending): TopN's order.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "precis/core/host_device.h"
#include "precis/kernels/decoding_math.h"

// The kernels' helpers run on the device only (they synchronise the block).
#if defined(__CUDACC__)
#define PRECIS_DECODING_DEVICE static __device__ __forceinline__
#else
#define PRECIS_DECODING_DEVICE inline
#endif

namespace precis::cuda {

constexpr int kDecodingThreads = 256;  // threads per block: a power of two

// What next_token_scores_kernel reads of a LogitsProcessing: its scalars, and its lists
// uploaded by the launcher (device memory).
struct ProcessingArgs {
  float repetition_penalty;
  int64_t no_repeat_ngram_size;
  // Bad word w is bad_word_tokens[bad_word_starts[w] .. bad_word_starts[w + 1]).
  const int32_t* bad_word_starts;  // (bad_words + 1)
  const int32_t* bad_word_tokens;
  int64_t bad_words;
  const int32_t* eos_ids;  // (eos_count)
  int64_t eos_count;
  int64_t min_length, min_new_tokens, prompt_length;
  const int32_t* forced_bos;      // (1), or null
  const int32_t* forced_eos_ids;  // (forced_eos_count)
  int64_t forced_eos_count;
  int64_t max_length;
};

// What choose_sampled_kernel reads of a LogitsWarping, and top-p's sort buffers: `sort_width`
// (a power of two >= vocab) scores and ids per row, in device memory.
struct SamplingArgs {
  float temperature;
  int64_t top_k;
  double top_p;
  int64_t min_keep;
  uint64_t seed, counter;
  float* sort_scores;
  int32_t* sort_ids;
  int64_t sort_width;
};

// The block's max of x[0..n): every thread returns it. lanes: kDecodingThreads slots.
PRECIS_DECODING_DEVICE float block_max(const float* x, int64_t n, float* lanes) {
  const unsigned t = threadIdx.x;
  float m = -INFINITY;
  for (int64_t j = t; j < n; j += blockDim.x) m = m < x[j] ? x[j] : m;
  lanes[t] = m;
  __syncthreads();
  for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
    if (t < width && lanes[t] < lanes[t + width]) lanes[t] = lanes[t + width];
    __syncthreads();
  }
  const float result = lanes[0];
  __syncthreads();  // the lanes are free again
  return result;
}

// The block's sum of each thread's `part`, in a fixed tree: every thread returns it.
template <class T>
PRECIS_DECODING_DEVICE T block_sum(T part, T* lanes) {
  const unsigned t = threadIdx.x;
  lanes[t] = part;
  __syncthreads();
  for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
    if (t < width) lanes[t] += lanes[t + width];
    __syncthreads();
  }
  const T result = lanes[0];
  __syncthreads();
  return result;
}

// Whether (score a, index i) comes before (b, j) in the candidates' order: higher score
// first, equal scores by lower index; j < 0 is no candidate yet.
PRECIS_DECODING_DEVICE bool ranks_before(float a, int64_t i, float b, int64_t j) {
  return j < 0 || a > b || (a == b && i < j);
}

// The block's best (score, index) of x[0..n) in that order, among those ranked after
// (after_score, after_index) when after_index >= 0: every thread gets it. Ties go to the lower
// index, as std::max_element and TopN choose.
PRECIS_DECODING_DEVICE void block_best(const float* x, int64_t n, float after_score,
                                       int64_t after_index, float* score_lanes,
                                       int64_t* index_lanes, float& score, int64_t& index) {
  const unsigned t = threadIdx.x;
  float best = -INFINITY;
  int64_t at = -1;
  for (int64_t j = t; j < n; j += blockDim.x) {
    const bool eligible = after_index < 0 || ranks_before(after_score, after_index, x[j], j);
    if (eligible && ranks_before(x[j], j, best, at)) best = x[j], at = j;
  }
  score_lanes[t] = best;
  index_lanes[t] = at;
  __syncthreads();
  for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
    if (t < width && index_lanes[t + width] >= 0 &&
        ranks_before(score_lanes[t + width], index_lanes[t + width], score_lanes[t],
                     index_lanes[t])) {
      score_lanes[t] = score_lanes[t + width];
      index_lanes[t] = index_lanes[t + width];
    }
    __syncthreads();
  }
  score = score_lanes[0];
  index = index_lanes[0];
  __syncthreads();
}

// Every score of the row -inf, then 0 at each forced id (ForcedBOS / ForcedEOS).
PRECIS_DECODING_DEVICE void force_tokens(float* row, int64_t vocab, const int32_t* ids,
                                         int64_t count) {
  for (int64_t j = threadIdx.x; j < vocab; j += blockDim.x) row[j] = -INFINITY;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int64_t i = 0; i < count; ++i)
      if (ids[i] >= 0 && ids[i] < vocab) row[ids[i]] = 0.0f;
  __syncthreads();
}

// The bans that read the history (n-grams, bad words, minimum lengths), by one thread: they
// may ban one id several times, which one writer makes race-free. history: the row's `length`
// tokens.
PRECIS_DECODING_DEVICE void ban_from_history(float* row, int64_t vocab, const int32_t* history,
                                             int64_t length, const ProcessingArgs& p) {
  const int64_t n = p.no_repeat_ngram_size;
  if (n > 0 && length + 1 >= n) {
    const int64_t prefix = length - (n - 1);  // the n-1 tokens the next one would follow
    for (int64_t start = 0; start + n <= length; ++start) {
      bool repeats = true;
      for (int64_t k = 0; k < n - 1 && repeats; ++k)
        repeats = history[start + k] == history[prefix + k];
      const int32_t banned = history[start + n - 1];
      if (repeats && banned >= 0 && banned < vocab) row[banned] = -INFINITY;
    }
  }
  for (int64_t w = 0; w < p.bad_words; ++w) {
    const int32_t* word = p.bad_word_tokens + p.bad_word_starts[w];
    const int64_t size = p.bad_word_starts[w + 1] - p.bad_word_starts[w];
    if (size == 0 || size > length) continue;
    bool follows = true;  // the history ends with the word's other tokens
    for (int64_t k = 0; k < size - 1 && follows; ++k)
      follows = history[length - (size - 1) + k] == word[k];
    const int32_t banned = word[size - 1];
    if (follows && banned >= 0 && banned < vocab) row[banned] = -INFINITY;
  }
  const bool below_min_length = p.min_length > 0 && length < p.min_length;
  const bool below_min_new = p.min_new_tokens > 0 && length - p.prompt_length < p.min_new_tokens;
  if (below_min_length || below_min_new)
    for (int64_t i = 0; i < p.eos_count; ++i)
      if (p.eos_ids[i] >= 0 && p.eos_ids[i] < vocab) row[p.eos_ids[i]] = -INFINITY;
}

// grid (rows), block kDecodingThreads. history (rows, capacity) I32; beam_scores (rows) or
// null (greedy and sampling: no log-softmax, no running score).
PRECIS_KERNEL void next_token_scores_kernel(float* scores, int64_t vocab, const int32_t* history,
                                            int64_t capacity, int64_t length, ProcessingArgs p,
                                            const float* beam_scores) {
  PRECIS_SHARED(float[kDecodingThreads], max_lanes);
  PRECIS_SHARED(double[kDecodingThreads], sum_lanes);
  const int64_t r = blockIdx.x;
  const unsigned t = threadIdx.x;
  float* row = scores + r * vocab;
  const int32_t* tokens = history + r * capacity;
  if (beam_scores) {
    const float max = block_max(row, vocab, max_lanes);
    if (max != -INFINITY) {  // the same for every thread: each reaches the sum's barriers
      double part = 0;
      for (int64_t j = t; j < vocab; j += blockDim.x)
        part += decoding_math::log_softmax_term(row[j], max);
      const float log_sum = decoding_math::log_softmax_log_sum(block_sum(part, sum_lanes));
      for (int64_t j = t; j < vocab; j += blockDim.x)
        row[j] = decoding_math::log_softmax_value(row[j], max, log_sum);
      __syncthreads();
    }
  }
  if (p.repetition_penalty != 1.0f) {
    for (int64_t i = t; i < length; i += blockDim.x) {
      const int32_t id = tokens[i];
      bool first = id >= 0 && id < vocab;
      for (int64_t k = 0; k < i && first; ++k) first = tokens[k] != id;
      if (first) row[id] = decoding_math::repetition_penalized(row[id], p.repetition_penalty);
    }
    __syncthreads();
  }
  if (t == 0) ban_from_history(row, vocab, tokens, length, p);
  __syncthreads();
  if (p.forced_bos && length == 1) force_tokens(row, vocab, p.forced_bos, 1);
  if (p.forced_eos_count > 0 && length == p.max_length - 1)
    force_tokens(row, vocab, p.forced_eos_ids, p.forced_eos_count);
  if (beam_scores) {
    const float running = beam_scores[r];
    for (int64_t j = t; j < vocab; j += blockDim.x) row[j] = row[j] + running;
  }
}

// grid (rows), block kDecodingThreads: tokens[r] = row r's first argmax.
PRECIS_KERNEL void choose_greedy_kernel(const float* scores, int64_t vocab, int32_t* tokens) {
  PRECIS_SHARED(float[kDecodingThreads], score_lanes);
  PRECIS_SHARED(int64_t[kDecodingThreads], index_lanes);
  float best;
  int64_t at;
  block_best(scores + int64_t(blockIdx.x) * vocab, vocab, 0.0f, -1, score_lanes, index_lanes, best,
             at);
  if (threadIdx.x == 0) tokens[blockIdx.x] = int32_t(at);
}

// A float's bits as an unsigned key in the floats' order (-0 just under +0).
PRECIS_DECODING_DEVICE uint32_t ordered_key(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}
PRECIS_DECODING_DEVICE float key_value(uint32_t key) {
  const uint32_t bits = key & 0x80000000u ? key & 0x7fffffffu : ~key;
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

// Top-k's radix select: the threshold's key is settled kSelectBits at a time from the top.
constexpr int kSelectBits = 4;
constexpr int kSelectDigits = 1 << kSelectBits;
using DigitCounts = int32_t[kSelectDigits][kDecodingThreads];

// TopKLogitsWarper: removes the scores under the k-th largest (ties at it survive). Its key
// is found digit by digit: each pass counts, per digit, the keys that share the digits settled
// so far (a column per thread, summed by a tree), and takes the highest digit under which the
// k-th largest still lies. 8 passes over the row for 32-bit keys.
PRECIS_DECODING_DEVICE void keep_top_k(float* row, int64_t vocab, int64_t top_k, int64_t min_keep,
                                       DigitCounts& counts) {
  const int64_t wanted = top_k > min_keep ? top_k : min_keep;
  const int64_t keep = wanted < vocab ? wanted : vocab;
  if (keep <= 0 || keep >= vocab) return;
  const unsigned t = threadIdx.x;
  uint32_t settled = 0;  // the threshold key's digits found so far
  int64_t rank = keep;   // its rank, from the top, among the keys that share them
  for (int shift = 32 - kSelectBits; shift >= 0; shift -= kSelectBits) {
    const uint32_t settled_mask = shift + kSelectBits == 32 ? 0u : ~0u << (shift + kSelectBits);
    for (int d = 0; d < kSelectDigits; ++d) counts[d][t] = 0;
    for (int64_t j = t; j < vocab; j += blockDim.x) {
      const uint32_t key = ordered_key(row[j]);
      if ((key & settled_mask) == settled) ++counts[(key >> shift) & (kSelectDigits - 1)][t];
    }
    __syncthreads();
    for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
      if (t < width)
        for (int d = 0; d < kSelectDigits; ++d) counts[d][t] += counts[d][t + width];
      __syncthreads();
    }
    int digit = kSelectDigits - 1;  // the keys sharing the settled digits number >= rank
    while (counts[digit][0] < rank) rank -= counts[digit--][0];
    settled |= uint32_t(digit) << shift;
    __syncthreads();  // the counts are cleared next pass
  }
  const float cut = key_value(settled);
  for (int64_t j = t; j < vocab; j += blockDim.x)
    if (row[j] < cut) row[j] = -INFINITY;
  __syncthreads();
}

// Whether (score a, id i) comes before (b, j) in std::stable_sort's ascending order.
PRECIS_DECODING_DEVICE bool sorts_before(float a, int32_t i, float b, int32_t j) {
  return a < b || (!(b < a) && i < j);
}

// TopPLogitsWarper: the row's stable ascending order by a bitonic sort of (score, id) over
// `width` slots (a power of two; the padding, +inf with ids >= vocab, sorts last), then
// thread 0 runs the CPU's removal walk over it.
PRECIS_DECODING_DEVICE void keep_top_p(float* row, int64_t vocab, double top_p, int64_t min_keep,
                                       float* keys, int32_t* ids, int64_t width) {
  const unsigned t = threadIdx.x;
  for (int64_t j = t; j < width; j += blockDim.x) {
    keys[j] = j < vocab ? row[j] : INFINITY;
    ids[j] = int32_t(j);
  }
  __syncthreads();
  for (int64_t size = 2; size <= width; size *= 2) {
    for (int64_t half = size / 2; half > 0; half /= 2) {
      for (int64_t i = t; i < width; i += blockDim.x) {
        const int64_t partner = i ^ half;  // each pair is swapped by the thread of its lower slot
        if (partner <= i) continue;
        const bool ascending = (i & size) == 0;
        if (sorts_before(keys[partner], ids[partner], keys[i], ids[i]) == ascending) {
          const float key = keys[i];
          const int32_t id = ids[i];
          keys[i] = keys[partner], ids[i] = ids[partner];
          keys[partner] = key, ids[partner] = id;
        }
      }
      __syncthreads();
    }
  }
  if (t == 0) decoding_math::remove_top_p(row, vocab, ids, top_p, min_keep);
  __syncthreads();
}

// grid (rows), block kDecodingThreads: row r warped in place (temperature, top-k, top-p), then
// tokens[r] drawn with uniform(seed, r, counter).
PRECIS_KERNEL void choose_sampled_kernel(float* scores, int64_t vocab, SamplingArgs a,
                                         int32_t* tokens) {
  PRECIS_SHARED(float[kDecodingThreads], max_lanes);
  PRECIS_SHARED(DigitCounts, digit_counts);
  const int64_t r = blockIdx.x;
  float* row = scores + r * vocab;
  if (a.temperature != 1.0f) {
    for (int64_t j = threadIdx.x; j < vocab; j += blockDim.x)
      row[j] = decoding_math::tempered(row[j], a.temperature);
    __syncthreads();
  }
  if (a.top_k != 0) keep_top_k(row, vocab, a.top_k, a.min_keep, digit_counts);
  if (a.top_p < 1.0)
    keep_top_p(row, vocab, a.top_p, a.min_keep, a.sort_scores + r * a.sort_width,
               a.sort_ids + r * a.sort_width, a.sort_width);
  const float max = block_max(row, vocab, max_lanes);
  if (threadIdx.x == 0)
    tokens[r] = decoding_math::draw(row, vocab, max,
                                    decoding_math::uniform(a.seed, uint64_t(r), a.counter));
}

// grid (inputs), block kDecodingThreads: input i's best n of its `width` flat scores, in
// descending order, equal scores by lower flat index.
PRECIS_KERNEL void top_candidates_kernel(const float* scores, int64_t width, int64_t n,
                                         float* values, int32_t* indices) {
  PRECIS_SHARED(float[kDecodingThreads], score_lanes);
  PRECIS_SHARED(int64_t[kDecodingThreads], index_lanes);
  const int64_t i = blockIdx.x;
  float last = 0.0f;
  int64_t last_index = -1;
  for (int64_t k = 0; k < n; ++k) {
    block_best(scores + i * width, width, last, last_index, score_lanes, index_lanes, last,
               last_index);
    if (threadIdx.x == 0) values[i * n + k] = last, indices[i * n + k] = int32_t(last_index);
  }
}

}  // namespace precis::cuda
