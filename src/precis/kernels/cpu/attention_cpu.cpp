#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "precis/kernels/attention_math.h"
#include "precis/kernels/cpu/attention_few_queries.h"
#include "precis/kernels/cpu/gemm.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/matmul_precision.h"
#include "precis/kernels/row_math.h"

namespace precis::cpu {

namespace {

// One product of a (batch, head) pair, C = alpha · op(A) · op(B): an fp32 sgemm (single-threaded
// inside the op's parallel region), or under --bf16 on the CPU bf16 operands with fp32 sums, as
// torch's autocast runs attention's bmm (kernels/matmul_precision.h).
void pair_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  if (cpu_matmul_precision() == MatmulPrecision::kBf16)
    return gemm_bf16(bf16_path(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), alpha, a, int(lda), b,
              int(ldb), 0.0f, c, int(ldc));
}

// scores (Tq, Tk) of pair (b, h) = scale * q_bh · k_bhᵀ (+ the head's position bias).
void pair_scores(const AttentionShape& s, const float* q, const float* k, const float* bias,
                 float scale, int64_t b, int64_t h, float* scores) {
  const float* qb = q + b * s.q_len * s.q_stride + h * s.head_dim;
  const float* kb = k + b * s.k_len * s.k_stride + h * s.head_dim;
  pair_gemm(false, true, s.q_len, s.k_len, s.head_dim, scale, qb, s.q_stride, kb, s.k_stride,
            scores, s.k_len);
  if (bias) {  // T5's relative position bias, the same for every batch row
    const int64_t plane = s.q_len * s.k_len;
    const float* bh = bias + h * plane;
#pragma omp simd
    for (int64_t ij = 0; ij < plane; ++ij) scores[ij] += bh[ij];
  }
}

// The last visible key of query row i.
int64_t causal_limit(const AttentionShape& s, const AttentionMaskView& m, int64_t i) {
  return attention_math::causal_limit(m.causal, m.past, i, s.k_len);
}

// The weights that multiply v for pair p: its probabilities, or with attention_dropout active
// the same dropped out into `dropped` (plane elements), the pair's numbering in the op's range.
const float* dropped_weights(const float* probs, float* dropped, int64_t plane, int64_t p,
                             const DropoutRange& dropout) {
  if (!dropout.active) return probs;
  dropout_range(probs, dropped, plane, dropout.first + uint64_t(p * plane), dropout.threshold,
                dropout.scale, dropout.seed, dropout.stream);
  return dropped;
}

}  // namespace

void attention_forward(const AttentionShape& s, const float* q, const float* k, const float* v,
                       const AttentionMaskView& m, float scale, float* out, float* probs,
                       float* log_sum_exp, const DropoutRange& dropout) {
  if (attention_few_queries_usable(s, probs || log_sum_exp, dropout.active))
    return attention_few_queries(s, q, k, v, m, scale, out);
  const int64_t pairs = s.batch * s.heads, plane = s.q_len * s.k_len;
  // One (batch, head) pair per task; inside a parallel region OpenBLAS runs single-threaded.
#pragma omp parallel
  {
    std::vector<float> scores_scratch(probs ? 0 : size_t(plane));
    std::vector<float> dropped(dropout.active ? size_t(plane) : 0);
#pragma omp for schedule(static)
    for (int64_t p = 0; p < pairs; ++p) {
      int64_t b = p / s.heads, h = p % s.heads;
      const float* vb = v + b * s.k_len * s.v_stride + h * s.head_dim;
      float* ob = out + b * s.q_len * s.out_stride + h * s.head_dim;
      float* scores = probs ? probs + p * plane : scores_scratch.data();
      pair_scores(s, q, k, m.bias, scale, b, h, scores);
      const int32_t* row_mask = m.key_mask ? m.key_mask + b * s.k_len : nullptr;
      for (int64_t i = 0; i < s.q_len; ++i) {
        float lse = attention_math::masked_softmax_row_lse(scores + i * s.k_len, s.k_len, row_mask,
                                                           causal_limit(s, m, i));
        if (log_sum_exp) log_sum_exp[p * s.q_len + i] = lse;
      }
      // attention_dropout on the probabilities; `scores` keeps them undropped.
      const float* weights = dropped_weights(scores, dropped.data(), plane, p, dropout);
      // out_bh (Tq, hd) = weights · v_bh
      pair_gemm(false, false, s.q_len, s.head_dim, s.k_len, 1.0f, weights, s.k_len, vb, s.v_stride,
                ob, s.out_stride);
    }
  }
}

void attention_backward(const AttentionShape& s, const float* dout, const float* q, const float* k,
                        const float* v, const float* probs, const float* log_sum_exp,
                        const AttentionMaskView& m, float scale, const DropoutRange& dropout,
                        float* dq, float* dk, float* dv, float* d_scores) {
  const int64_t pairs = s.batch * s.heads, plane = s.q_len * s.k_len;
  // dq, dk, dv have the strides of q, k, v; each pair writes only its own head's columns.
#pragma omp parallel
  {
    std::vector<float> dprobs(static_cast<size_t>(plane));
    std::vector<float> dropped(dropout.active ? size_t(plane) : 0);
    std::vector<float> recomputed(probs ? 0 : size_t(plane));
#pragma omp for schedule(static)
    for (int64_t p = 0; p < pairs; ++p) {
      int64_t b = p / s.heads, h = p % s.heads;
      int64_t head = h * s.head_dim;
      const float* qb = q + b * s.q_len * s.q_stride + head;
      const float* kb = k + b * s.k_len * s.k_stride + head;
      const float* vb = v + b * s.k_len * s.v_stride + head;
      const float* dob = dout + b * s.q_len * s.out_stride + head;
      const float* pb = probs ? probs + p * plane : recomputed.data();
      if (!probs) {  // P = exp(S - lse) from the scores again, as a recomputing backend does
        pair_scores(s, q, k, m.bias, scale, b, h, recomputed.data());
        const int32_t* row_mask = m.key_mask ? m.key_mask + b * s.k_len : nullptr;
        for (int64_t i = 0; i < s.q_len; ++i)
          attention_math::softmax_row_from_lse(recomputed.data() + i * s.k_len, s.k_len, row_mask,
                                               causal_limit(s, m, i), log_sum_exp[p * s.q_len + i]);
      }
      float* dP = dprobs.data();
      // The weights the forward multiplied v by: the probabilities, dropped out.
      const float* weights = dropped_weights(pb, dropped.data(), plane, p, dropout);
      // out = weights · v  =>  dv (Tk, hd) = weightsᵀ · dout
      pair_gemm(true, false, s.k_len, s.head_dim, s.q_len, 1.0f, weights, s.k_len, dob,
                s.out_stride, dv + b * s.k_len * s.v_stride + head, s.v_stride);
      //                    d weights (Tq, Tk) = dout · vᵀ
      pair_gemm(false, true, s.q_len, s.k_len, s.head_dim, 1.0f, dob, s.out_stride, vb, s.v_stride,
                dP, s.k_len);
      // weights = probs ∘ keep/(1-p)  =>  dprobs = d weights ∘ keep/(1-p) (the same mask)
      if (dropout.active)
        dropout_range(dP, dP, plane, dropout.first + uint64_t(p * plane), dropout.threshold,
                      dropout.scale, dropout.seed, dropout.stream);
      // Softmax: dscores_j = P_j · (dP_j - Σ_l P_l·dP_l). Masked keys have P = 0 and get 0.
      for (int64_t i = 0; i < s.q_len; ++i) {
        const float* pr = pb + i * s.k_len;
        float* dr = dP + i * s.k_len;
        const float fdot = float(row_math::row_dot(pr, dr, s.k_len));
#pragma omp simd
        for (int64_t j = 0; j < s.k_len; ++j) dr[j] = pr[j] * (dr[j] - fdot);
      }
      if (d_scores) std::copy(dP, dP + plane, d_scores + p * plane);
      // scores = scale · q·kᵀ  =>  dq (Tq, hd) = scale · dscores · k
      pair_gemm(false, false, s.q_len, s.head_dim, s.k_len, scale, dP, s.k_len, kb, s.k_stride,
                dq + b * s.q_len * s.q_stride + head, s.q_stride);
      //                         dk (Tk, hd) = scale · dscoresᵀ · q
      pair_gemm(true, false, s.k_len, s.head_dim, s.q_len, scale, dP, s.k_len, qb, s.q_stride,
                dk + b * s.k_len * s.k_stride + head, s.k_stride);
    }
  }
}

}  // namespace precis::cpu
