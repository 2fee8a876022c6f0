#include <cblas.h>

#include <cmath>
#include <limits>
#include <vector>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

namespace {

// Softmax of one row of scores in place, over the keys `visible` says are attended.
void masked_softmax_row(float* row, int64_t n, const int32_t* key_mask, int64_t causal_limit) {
  float max = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    bool visible = (!key_mask || key_mask[j]) && j <= causal_limit;
    if (!visible) row[j] = -std::numeric_limits<float>::infinity();
    if (row[j] > max) max = row[j];
  }
  if (max == -std::numeric_limits<float>::infinity()) {
    for (int64_t j = 0; j < n; ++j) row[j] = 1.0f / float(n);
    return;
  }
  float sum = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - max);
    sum += row[j];
  }
  float inv = 1.0f / sum;
  for (int64_t j = 0; j < n; ++j) row[j] *= inv;
}

}  // namespace

void attention_forward(const AttentionShape& s, const float* q, const float* k, const float* v,
                       const int32_t* key_mask, bool causal, int64_t past, float scale,
                       float* out, float* probs) {
  const int64_t pairs = s.batch * s.heads;
  // One (batch, head) pair per task; inside a parallel region OpenBLAS runs single-threaded.
#pragma omp parallel
  {
    std::vector<float> scratch(probs ? 0 : size_t(s.q_len * s.k_len));
#pragma omp for schedule(static)
    for (int64_t p = 0; p < pairs; ++p) {
      int64_t b = p / s.heads, h = p % s.heads;
      const float* qb = q + b * s.q_len * s.q_stride + h * s.head_dim;
      const float* kb = k + b * s.k_len * s.k_stride + h * s.head_dim;
      const float* vb = v + b * s.k_len * s.v_stride + h * s.head_dim;
      float* ob = out + b * s.q_len * s.out_stride + h * s.head_dim;
      float* scores = probs ? probs + p * s.q_len * s.k_len : scratch.data();
      // scores (Tq, Tk) = scale * q_bh · k_bhᵀ
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(s.q_len), int(s.k_len),
                  int(s.head_dim), scale, qb, int(s.q_stride), kb, int(s.k_stride), 0.0f, scores,
                  int(s.k_len));
      const int32_t* row_mask = key_mask ? key_mask + b * s.k_len : nullptr;
      for (int64_t i = 0; i < s.q_len; ++i) {
        int64_t limit = causal ? i + past : s.k_len;
        masked_softmax_row(scores + i * s.k_len, s.k_len, row_mask, limit);
      }
      // out_bh (Tq, hd) = probs · v_bh
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.q_len), int(s.head_dim),
                  int(s.k_len), 1.0f, scores, int(s.k_len), vb, int(s.v_stride), 0.0f, ob,
                  int(s.out_stride));
    }
  }
}

}  // namespace precis::cpu
