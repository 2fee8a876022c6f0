#include "precis/kernels/cpu/attention_few_queries.h"

#include <algorithm>
#include <vector>

#include "precis/kernels/attention_math.h"
#include "precis/kernels/matmul_precision.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

namespace {

#if defined(__x86_64__)

constexpr int kLanes = 16;

// The 16 lanes summed in one fixed tree: the upper 8 onto the lower, then 4, 2, 1. Through
// memory: GCC 12's 512-bit shuffle and extract intrinsics warn of an uninitialised operand.
__attribute__((target("avx512f"))) inline float lane_sum(__m512 x) {
  alignas(64) float lanes[kLanes];
  _mm512_store_ps(lanes, x);
  const __m256 eight = _mm256_add_ps(_mm256_load_ps(lanes), _mm256_load_ps(lanes + 8));
  const __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
  const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
  const __m128 one = _mm_add_ss(two, _mm_movehdup_ps(two));
  return _mm_cvtss_f32(one);
}

// scale · (query · key) over the head's `slices` 16-lane slices.
__attribute__((target("avx512f"))) inline float score(const float* query, const float* key,
                                                      int slices, float scale) {
  __m512 acc = _mm512_setzero_ps();
  for (int c = 0; c < slices; ++c)
    acc = _mm512_fmadd_ps(_mm512_loadu_ps(query + kLanes * c), _mm512_loadu_ps(key + kLanes * c),
                          acc);
  return scale * lane_sum(acc);
}

// The row of k and v (as (B · capacity) rows) holding key j of batch row b.
inline int64_t key_row(const AttentionMaskView& m, const AttentionShape& s, int64_t b, int64_t j) {
  if (!m.key_rows) return b * s.k_len + j;
  return int64_t(m.key_rows[b * m.key_capacity + j]) * m.key_capacity + j;
}

// out_row += p · v_row over one head's slices, in memory (the row stays in L1).
__attribute__((target("avx512f"))) inline void add_weighted(float p, const float* v_row, int slices,
                                                            float* out_row) {
  const __m512 weight = _mm512_set1_ps(p);
  for (int c = 0; c < slices; ++c) {
    float* o = out_row + kLanes * c;
    _mm512_storeu_ps(
        o, _mm512_fmadd_ps(weight, _mm512_loadu_ps(v_row + kLanes * c), _mm512_loadu_ps(o)));
  }
}

// One batch row at a time, every head and query of it together: the keys and values are read
// row by row (a row holds every head), in order, which the hardware prefetchers follow; a head's
// slices alone are 256 bytes every few kilobytes, where they stop.
__attribute__((target("avx512f"))) void run_rows(const AttentionShape& s, const float* q,
                                                 const float* k, const float* v,
                                                 const AttentionMaskView& m, float scale,
                                                 float* out) {
  const int slices = int(s.head_dim / kLanes);
  const int64_t lines = s.q_len * s.heads;  // score rows of a batch row: (query, head)
#pragma omp parallel if (s.batch > 1)
  {
    std::vector<float> scores(size_t(lines * s.k_len));
#pragma omp for schedule(static)
    for (int64_t b = 0; b < s.batch; ++b) {
      const float* qb = q + b * s.q_len * s.q_stride;
      float* ob = out + b * s.q_len * s.out_stride;
      const int32_t* key_mask = m.key_mask ? m.key_mask + b * s.k_len : nullptr;
      // A padded key is neither read nor multiplied: its score becomes -inf in the softmax
      // whatever it held, and its probability is exactly 0, so it adds nothing to the outputs.
      for (int64_t j = 0; j < s.k_len; ++j) {
        if (key_mask && !key_mask[j]) continue;
        const float* key = k + key_row(m, s, b, j) * s.k_stride;
        for (int64_t i = 0; i < s.q_len; ++i)
          for (int64_t h = 0; h < s.heads; ++h)
            scores[size_t((i * s.heads + h) * s.k_len + j)] =
                score(qb + i * s.q_stride + h * s.head_dim, key + h * s.head_dim, slices, scale);
      }
      for (int64_t i = 0; i < s.q_len; ++i)
        for (int64_t h = 0; h < s.heads; ++h) {
          float* row = scores.data() + (i * s.heads + h) * s.k_len;
          if (m.bias) {  // T5's position bias of head h, query row i
            const float* bias_row = m.bias + (h * s.q_len + i) * s.k_len;
            for (int64_t j = 0; j < s.k_len; ++j) row[j] += bias_row[j];
          }
          attention_math::masked_softmax_row_lse(
              row, s.k_len, key_mask, attention_math::causal_limit(m.causal, m.past, i, s.k_len));
          std::fill(ob + i * s.out_stride + h * s.head_dim,
                    ob + i * s.out_stride + (h + 1) * s.head_dim, 0.0f);
        }
      for (int64_t j = 0; j < s.k_len; ++j) {
        if (key_mask && !key_mask[j]) continue;
        const float* value = v + key_row(m, s, b, j) * s.v_stride;
        for (int64_t i = 0; i < s.q_len; ++i)
          for (int64_t h = 0; h < s.heads; ++h)
            add_weighted(scores[size_t((i * s.heads + h) * s.k_len + j)], value + h * s.head_dim,
                         slices, ob + i * s.out_stride + h * s.head_dim);
      }
    }
  }
}

#endif

}  // namespace

bool attention_few_queries_kernel(int64_t head_dim) {
#if defined(__x86_64__) && defined(__AVX512F__)
  static const bool cpu_has_it = __builtin_cpu_supports("avx512f");
  return cpu_has_it && head_dim > 0 && head_dim % 16 == 0 &&
         cpu_matmul_precision() == MatmulPrecision::kFp32;
#else
  (void)head_dim;
  return false;
#endif
}

bool attention_few_queries_usable(const AttentionShape& s, bool saves, bool dropout) {
  return !saves && !dropout && s.q_len <= kFewQueriesMax &&
         attention_few_queries_kernel(s.head_dim);
}

void attention_few_queries(const AttentionShape& s, const float* q, const float* k, const float* v,
                           const AttentionMaskView& m, float scale, float* out) {
#if defined(__x86_64__)
  run_rows(s, q, k, v, m, scale, out);
#else
  (void)s, (void)q, (void)k, (void)v, (void)m, (void)scale, (void)out;
#endif
}

}  // namespace precis::cpu
