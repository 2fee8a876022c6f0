#include "precis/kernels/cpu/attention_few_queries.h"

#include <algorithm>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/kernels/attention_math.h"
#include "precis/kernels/cpu/lane_sum.h"
#include "precis/kernels/matmul_precision.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

namespace {

// The vector lanes of one build: 16 (AVX-512) or 8 (AVX2 with FMA). The whole file is
// compiled for the build's ISA (-march), so each is there only where the build may run it.
// One interface for both, its intrinsics named by their prefix (_mm512, _mm256).
#define PRECIS_LANES(Name, width, VecType, prefix)                               \
  struct Name {                                                                  \
    static constexpr int kWidth = width;                                         \
    using Vec = VecType;                                                         \
    static Vec zero() { return prefix##_setzero_ps(); }                          \
    static Vec load(const float* p) { return prefix##_loadu_ps(p); }             \
    static void store(float* p, Vec x) { prefix##_storeu_ps(p, x); }             \
    static Vec broadcast(float x) { return prefix##_set1_ps(x); }                \
    static Vec fmadd(Vec a, Vec b, Vec c) { return prefix##_fmadd_ps(a, b, c); } \
    static float sum(Vec x) { return lane_sum(x); }                              \
  };

#if defined(__AVX2__) && defined(__FMA__)
PRECIS_LANES(Lanes8, 8, __m256, _mm256)
#endif
#if defined(__AVX512F__)
PRECIS_LANES(Lanes16, 16, __m512, _mm512)
#endif

#undef PRECIS_LANES

// scale · (query · key) over the head's `slices` slices of L::kWidth lanes.
template <class L>
inline float score(const float* query, const float* key, int slices, float scale) {
  typename L::Vec acc = L::zero();
  for (int c = 0; c < slices; ++c)
    acc = L::fmadd(L::load(query + L::kWidth * c), L::load(key + L::kWidth * c), acc);
  return scale * L::sum(acc);
}

// The row of k and v (as (B · capacity) rows) holding key j of batch row b.
inline int64_t key_row(const AttentionMaskView& m, const AttentionShape& s, int64_t b, int64_t j) {
  if (!m.key_rows) return b * s.k_len + j;
  return int64_t(m.key_rows[b * m.key_capacity + j]) * m.key_capacity + j;
}

constexpr int kKeysAtOnce = 4;  // value rows added per pass over an output row

// out_row += Σ_t p[t] · v_rows[t] over one head's slices, t = 0 .. n - 1 in order (n <=
// kKeysAtOnce): each output element is the same chain of fused multiply-adds as one key at a
// time, kept in a register across the n keys instead of stored and loaded between them.
template <class L>
inline void add_weighted(const float* p, const float* const* v_rows, int n, int slices,
                         float* out_row) {
  typename L::Vec weight[kKeysAtOnce];
  for (int t = 0; t < n; ++t) weight[t] = L::broadcast(p[t]);
  for (int c = 0; c < slices; ++c) {
    float* o = out_row + L::kWidth * c;
    typename L::Vec sum = L::load(o);
    for (int t = 0; t < n; ++t) sum = L::fmadd(weight[t], L::load(v_rows[t] + L::kWidth * c), sum);
    L::store(o, sum);
  }
}

// One batch row at a time, every head and query of it together: the keys and values are read
// row by row (a row holds every head), in order, which the hardware prefetchers follow; a head's
// slices alone are 256 bytes every few kilobytes, where they stop.
template <class L>
void run_rows(const AttentionShape& s, const float* q, const float* k, const float* v,
              const AttentionMaskView& m, float scale, float* out) {
  const int slices = int(s.head_dim / L::kWidth);
  const int64_t lines = s.q_len * s.heads;  // score rows of a batch row: (query, head)
#pragma omp parallel if (s.batch > 1)
  {
    std::vector<float> scores(size_t(lines * s.k_len));
    std::vector<int64_t> live;  // the batch row's unpadded keys, in order
#pragma omp for schedule(static)
    for (int64_t b = 0; b < s.batch; ++b) {
      const float* qb = q + b * s.q_len * s.q_stride;
      float* ob = out + b * s.q_len * s.out_stride;
      const int32_t* key_mask = m.key_mask ? m.key_mask + b * s.k_len : nullptr;
      // A padded key is neither read nor multiplied: its score becomes -inf in the softmax
      // whatever it held, and its probability is exactly 0, so it adds nothing to the outputs.
      live.clear();
      for (int64_t j = 0; j < s.k_len; ++j)
        if (!key_mask || key_mask[j]) live.push_back(j);
      for (int64_t j : live) {
        const float* key = k + key_row(m, s, b, j) * s.k_stride;
        for (int64_t i = 0; i < s.q_len; ++i)
          for (int64_t h = 0; h < s.heads; ++h)
            scores[size_t((i * s.heads + h) * s.k_len + j)] =
                score<L>(qb + i * s.q_stride + h * s.head_dim, key + h * s.head_dim, slices, scale);
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
      for (size_t first = 0; first < live.size(); first += kKeysAtOnce) {
        const int n = int(std::min<size_t>(kKeysAtOnce, live.size() - first));
        const float* values[kKeysAtOnce];
        for (int t = 0; t < n; ++t)
          values[t] = v + key_row(m, s, b, live[first + size_t(t)]) * s.v_stride;
        for (int64_t i = 0; i < s.q_len; ++i)
          for (int64_t h = 0; h < s.heads; ++h) {
            const float* row = scores.data() + (i * s.heads + h) * s.k_len;
            float p[kKeysAtOnce];
            const float* head_values[kKeysAtOnce];
            for (int t = 0; t < n; ++t) {
              p[t] = row[live[first + size_t(t)]];
              head_values[t] = values[t] + h * s.head_dim;
            }
            add_weighted<L>(p, head_values, n, slices, ob + i * s.out_stride + h * s.head_dim);
          }
      }
    }
  }
}

// The lanes that run heads `head_dim` wide, if any: 16 where the head is a multiple of 16 and
// the build has AVX-512, else 8 where it is a multiple of 8 and the build has AVX2.
int lanes_for(int64_t head_dim) {
  if (head_dim <= 0 || cpu_matmul_precision() != MatmulPrecision::kFp32) return 0;
#if defined(__AVX512F__)
  static const bool has_16 = __builtin_cpu_supports("avx512f");
  if (has_16 && head_dim % 16 == 0) return 16;
#endif
#if defined(__AVX2__) && defined(__FMA__)
  static const bool has_8 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (has_8 && head_dim % 8 == 0) return 8;
#endif
  return 0;
}

}  // namespace

bool attention_few_queries_kernel(int64_t head_dim) { return lanes_for(head_dim) != 0; }

bool attention_few_queries_usable(const AttentionShape& s, bool saves, bool dropout) {
  return !saves && !dropout && s.q_len <= kFewQueriesMax &&
         attention_few_queries_kernel(s.head_dim);
}

void attention_few_queries(const AttentionShape& s, const float* q, const float* k, const float* v,
                           const AttentionMaskView& m, float scale, float* out) {
  switch (lanes_for(s.head_dim)) {
#if defined(__AVX512F__)
    case 16:
      return run_rows<Lanes16>(s, q, k, v, m, scale, out);
#endif
#if defined(__AVX2__) && defined(__FMA__)
    case 8:
      return run_rows<Lanes8>(s, q, k, v, m, scale, out);
#endif
    default:
      // A build without AVX2 (PRECIS_NATIVE=OFF) has no form: the operands go unused.
      (void)q, (void)k, (void)v, (void)m, (void)scale, (void)out;
      check(false, "attention_few_queries: no decoding kernel for heads " +
                       std::to_string(s.head_dim) + " wide in this build or CPU");
  }
}

}  // namespace precis::cpu
