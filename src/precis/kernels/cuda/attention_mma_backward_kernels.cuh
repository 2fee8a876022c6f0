// Attention's backward on tensor cores (kernels/attention.h), for 16-bit heads of a multiple of
// 16 up to kMmaBackwardMaxHeadDim wide (attention_mma_kernels.cuh), from the saved log-sum-exps. Deterministic, no
// atomics: every output element is summed by one lane in a fixed order.
//
// - attention_backward_query_mma_kernel: one block per (64-query tile, batch·head), four warps
//   of 16 query rows, Q and dO as A fragments in registers. A first walk over the key tiles
//   sums the row terms D_i = Σ_j P_ij·dP_ij (the backward has no out to take them as
//   rowsum(dO ∘ O)) into row_dots; a second forms dS = P ∘ (dP - D) and adds dq += dS·K.
// - attention_backward_key_mma_kernel: one block per (64-key tile, batch·head), four warps of
//   16 keys, K and V as A fragments: Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ per query tile, then
//   dv += Wᵀ·dO (W: P dropped out) and dk += dSᵀ·Q.
// P is rebuilt from the log-sum-exps by attention_math.h's expression, dP gets the forward's
// dropout mask, and W and dS are rounded to the 16-bit type as the A fragments of their
// products, as HF's autocast rounds them before its bf16 matmuls; the rest is fp32.
//
// Skipped tiles, as in the forward: only those where every score is 0 because no row of the
// block sees a key there, and not at all where a row sees no key (it is uniform over every
// key). The query kernel walks every key tile when it writes d_scores (each element is
// written, zeros included).
#pragma once

#include <cstdint>

#include "precis/kernels/cuda/attention_mma_kernels.cuh"

namespace precis::cuda {

// dq (and d_scores) of one query tile of one pair; row_dots gets its rows' D_i.
template <class T>
PRECIS_KERNEL void attention_backward_query_mma_kernel(AttentionArgs<T> a, const T* dout,
                                                       const float* log_sum_exp, float* row_dots,
                                                       T* dq, float* d_scores) {
  PRECIS_SHARED(MmaTile, keys);
  PRECIS_SHARED(MmaTile, values);
  PRECIS_SHARED(int64_t[kAttentionThreads], lanes);
  const AttentionShape& s = a.shape;
  const AttentionPair<T> p = attention_pair(a);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int64_t i0 = int64_t(blockIdx.x) * kMmaQueries;
  const int head_dim = int(s.head_dim), k_steps = head_dim / 16, d_tiles = head_dim / 8;
  const int64_t first_key = first_unpadded_key(p.key_mask, s.k_len, lanes);
  const int64_t last_key = last_unpadded_key(p.key_mask, s.k_len, lanes);
  const T* dout_head = dout + p.batch * s.q_len * s.out_stride + p.head * s.head_dim;

  int64_t row[2], limit[2];
  bool in_range[2], sees[2];
  float lse[2];
  PRECIS_ATTENTION_UNROLL
  for (int r = 0; r < 2; ++r) {
    row[r] = i0 + warp * 16 + lane / 4 + 8 * r;
    in_range[r] = row[r] < s.q_len;
    limit[r] = attention_math::causal_limit(a.causal, a.past, row[r], s.k_len);
    sees[r] = row_sees_a_key(a, first_key, row[r]);
    lse[r] = in_range[r] ? log_sum_exp[p.index * s.q_len + row[r]] : 0.0f;
  }
  const bool uniform_row = !row_sees_a_key(a, first_key, i0);
  const KeyTiles walk = d_scores ? KeyTiles{0, s.k_len}
                                 : walked_key_tiles(s, a.causal, a.past, i0, first_key, last_key, uniform_row);

  uint32_t qa[kMmaBackwardMaxHeadDim / 16][4] = {}, da[kMmaBackwardMaxHeadDim / 16][4] = {};
  load_a_fragments(qa, p.q, i0 + warp * 16, s.q_len, s.q_stride, k_steps, lane);
  load_a_fragments(da, dout_head, i0 + warp * 16, s.q_len, s.out_stride, k_steps, lane);

  // P and dP (dropped out) of key tile j0 for this lane's elements; 0 outside the shape.
  float prob[kMmaKeys / 8][4], dp[kMmaKeys / 8][4];
  auto probabilities = [&](int64_t j0) {
    __syncthreads();  // the previous tile's readers are done
    stage_tile(keys, p.k, j0, s.k_len, s.k_stride, head_dim);
    stage_tile(values, p.v, j0, s.k_len, s.v_stride, head_dim);
    __syncthreads();
    PRECIS_ATTENTION_UNROLL
    for (int nt = 0; nt < kMmaKeys / 8; ++nt) {
      float dots[4], dout_v[4];
      product_with_rows<T>(dots, qa, keys, nt * 8, k_steps, lane);
      product_with_rows<T>(dout_v, da, values, nt * 8, k_steps, lane);
      PRECIS_ATTENTION_UNROLL
      for (int e = 0; e < 4; ++e) {
        const int r = e / 2;
        const int64_t i = row[r], j = j0 + nt * 8 + mma_c_col(lane, e);
        const bool inside = in_range[r] && j < s.k_len;
        prob[nt][e] = inside ? attention_math::probability_from_lse(
                                   score(a, p.bias, dots[e], i, j),
                                   attention_math::key_visible(p.key_mask, j, limit[r]), sees[r],
                                   s.k_len, lse[r])
                             : 0.0f;
        dp[nt][e] = inside ? dropped(a, p.index, i, j, dout_v[e]) : 0.0f;
      }
    }
  };

  // D_i = Σ_j P_ij·dP_ij: each lane's terms in key order, then the row's four lanes.
  float partial[2] = {0.0f, 0.0f};
  for (int64_t j0 = walk.begin; j0 < walk.end; j0 += kMmaKeys) {
    probabilities(j0);
    PRECIS_ATTENTION_UNROLL
    for (int nt = 0; nt < kMmaKeys / 8; ++nt)
      PRECIS_ATTENTION_UNROLL
      for (int e = 0; e < 4; ++e) partial[e / 2] += prob[nt][e] * dp[nt][e];
  }
  const float row_dot[2] = {row_sum4(partial[0]), row_sum4(partial[1])};
  PRECIS_ATTENTION_UNROLL
  for (int r = 0; r < 2; ++r)
    if (in_range[r] && lane % 4 == 0) row_dots[p.index * s.q_len + row[r]] = row_dot[r];

  // dS = P ∘ (dP - D);  dq = scale · dS · K.
  float acc[kMmaBackwardMaxHeadDim / 8][4] = {};
  for (int64_t j0 = walk.begin; j0 < walk.end; j0 += kMmaKeys) {
    probabilities(j0);
    float ds[kMmaKeys / 8][4];
    PRECIS_ATTENTION_UNROLL
    for (int nt = 0; nt < kMmaKeys / 8; ++nt)
      PRECIS_ATTENTION_UNROLL
      for (int e = 0; e < 4; ++e) {
        ds[nt][e] = prob[nt][e] * (dp[nt][e] - row_dot[e / 2]);
        const int64_t j = j0 + nt * 8 + mma_c_col(lane, e);
        if (d_scores && in_range[e / 2] && j < s.k_len)
          d_scores[(p.index * s.q_len + row[e / 2]) * s.k_len + j] = ds[nt][e];
      }
    PRECIS_ATTENTION_UNROLL
    for (int kc = 0; kc < kMmaKeys / 16; ++kc)
      accumulate_scores_times_tile<T>(acc, ds[2 * kc], ds[2 * kc + 1], keys, kc * 16, d_tiles, lane);
  }
  T* dq_head = dq + p.batch * s.q_len * s.q_stride + p.head * s.head_dim;
  PRECIS_ATTENTION_UNROLL
  for (int r = 0; r < 2; ++r) {
    if (!in_range[r]) continue;
    PRECIS_ATTENTION_UNROLL
    for (int dt = 0; dt < kMmaBackwardMaxHeadDim / 8; ++dt) {
      if (dt >= d_tiles) break;
      PRECIS_ATTENTION_UNROLL
      for (int e = 2 * r; e < 2 * r + 2; ++e)
        store(dq_head[row[r] * s.q_stride + dt * 8 + mma_c_col(lane, e)], acc[dt][e] * a.scale);
    }
  }
}

// The query tiles [begin, end) a key tile starting at j0 walks: all where a row sees no key,
// none where every key of the tile is padding, else from the first query whose causal limit
// reaches j0.
PRECIS_HOST_DEVICE inline KeyTiles walked_query_tiles(const AttentionShape& s, bool causal,
                                                      int64_t past, int64_t j0, int64_t first_key,
                                                      int64_t last_key, bool uniform_row) {
  if (uniform_row) return {0, s.q_len};
  if (j0 > last_key || j0 + kMmaKeys - 1 < first_key) return {0, 0};
  const int64_t first_query = causal && j0 - past > 0 ? j0 - past : 0;
  return {first_query / kMmaQueries * kMmaQueries, s.q_len};
}

// dk and dv of one key tile of one pair, from the query kernel's row_dots.
template <class T>
PRECIS_KERNEL void attention_backward_key_mma_kernel(AttentionArgs<T> a, const T* dout,
                                                     const float* log_sum_exp,
                                                     const float* row_dots, T* dk, T* dv) {
  PRECIS_SHARED(MmaTile, queries);
  PRECIS_SHARED(MmaTile, douts);
  PRECIS_SHARED(int64_t[kAttentionThreads], lanes);
  PRECIS_SHARED(float[kMmaQueries], tile_lse);
  PRECIS_SHARED(float[kMmaQueries], tile_dots);
  const AttentionShape& s = a.shape;
  const AttentionPair<T> p = attention_pair(a);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int64_t j0 = int64_t(blockIdx.x) * kMmaKeys;
  const int head_dim = int(s.head_dim), k_steps = head_dim / 16, d_tiles = head_dim / 8;
  const int64_t first_key = first_unpadded_key(p.key_mask, s.k_len, lanes);
  const int64_t last_key = last_unpadded_key(p.key_mask, s.k_len, lanes);
  const T* dout_head = dout + p.batch * s.q_len * s.out_stride + p.head * s.head_dim;
  const bool uniform_row = !row_sees_a_key(a, first_key, 0);
  const KeyTiles walk = walked_query_tiles(s, a.causal, a.past, j0, first_key, last_key, uniform_row);

  // This lane's two keys (C/D elements 0, 1 and 2, 3).
  int64_t key[2];
  bool in_range[2], padded[2];
  PRECIS_ATTENTION_UNROLL
  for (int r = 0; r < 2; ++r) {
    key[r] = j0 + warp * 16 + lane / 4 + 8 * r;
    in_range[r] = key[r] < s.k_len;
    padded[r] = in_range[r] && p.key_mask && !p.key_mask[key[r]];
  }
  uint32_t ka[kMmaBackwardMaxHeadDim / 16][4] = {}, va[kMmaBackwardMaxHeadDim / 16][4] = {};
  load_a_fragments(ka, p.k, j0 + warp * 16, s.k_len, s.k_stride, k_steps, lane);
  load_a_fragments(va, p.v, j0 + warp * 16, s.k_len, s.v_stride, k_steps, lane);

  float acc_v[kMmaBackwardMaxHeadDim / 8][4] = {}, acc_k[kMmaBackwardMaxHeadDim / 8][4] = {};
  for (int64_t i0 = walk.begin; i0 < walk.end; i0 += kMmaQueries) {
    __syncthreads();  // the previous tile's readers are done
    stage_tile(queries, p.q, i0, s.q_len, s.q_stride, head_dim);
    stage_tile(douts, dout_head, i0, s.q_len, s.out_stride, head_dim);
    for (int c = int(threadIdx.x); c < kMmaQueries; c += kMmaThreads) {
      const bool inside = i0 + c < s.q_len;
      tile_lse[c] = inside ? log_sum_exp[p.index * s.q_len + i0 + c] : 0.0f;
      tile_dots[c] = inside ? row_dots[p.index * s.q_len + i0 + c] : 0.0f;
    }
    __syncthreads();

    // Wᵀ and dSᵀ of the warp's 16 keys by the tile's 64 queries, eight 16 x 8 tiles of queries.
    float w[kMmaQueries / 8][4], ds[kMmaQueries / 8][4];
    PRECIS_ATTENTION_UNROLL
    for (int nt = 0; nt < kMmaQueries / 8; ++nt) {
      float dots[4], v_dout[4];
      product_with_rows<T>(dots, ka, queries, nt * 8, k_steps, lane);
      product_with_rows<T>(v_dout, va, douts, nt * 8, k_steps, lane);
      PRECIS_ATTENTION_UNROLL
      for (int e = 0; e < 4; ++e) {
        const int r = e / 2, c = nt * 8 + mma_c_col(lane, e);
        const int64_t i = i0 + c, j = key[r];
        float weight = 0.0f, d = 0.0f;
        if (in_range[r] && i < s.q_len) {
          const int64_t limit = attention_math::causal_limit(a.causal, a.past, i, s.k_len);
          const float prob = attention_math::probability_from_lse(
              score(a, p.bias, dots[e], i, j), !padded[r] && j <= limit,
              row_sees_a_key(a, first_key, i), s.k_len, tile_lse[c]);
          weight = dropped(a, p.index, i, j, prob);
          d = prob * (dropped(a, p.index, i, j, v_dout[e]) - tile_dots[c]);
        }
        w[nt][e] = weight;
        ds[nt][e] = d;
      }
    }
    // dv += Wᵀ · dO;  dk += dSᵀ · Q, 16 queries at a time.
    PRECIS_ATTENTION_UNROLL
    for (int kc = 0; kc < kMmaQueries / 16; ++kc) {
      accumulate_scores_times_tile<T>(acc_v, w[2 * kc], w[2 * kc + 1], douts, kc * 16, d_tiles, lane);
      accumulate_scores_times_tile<T>(acc_k, ds[2 * kc], ds[2 * kc + 1], queries, kc * 16, d_tiles, lane);
    }
  }
  T* dk_head = dk + p.batch * s.k_len * s.k_stride + p.head * s.head_dim;
  T* dv_head = dv + p.batch * s.k_len * s.v_stride + p.head * s.head_dim;
  PRECIS_ATTENTION_UNROLL
  for (int r = 0; r < 2; ++r) {
    if (!in_range[r]) continue;
    PRECIS_ATTENTION_UNROLL
    for (int dt = 0; dt < kMmaBackwardMaxHeadDim / 8; ++dt) {
      if (dt >= d_tiles) break;
      PRECIS_ATTENTION_UNROLL
      for (int e = 2 * r; e < 2 * r + 2; ++e) {
        const int64_t column = dt * 8 + mma_c_col(lane, e);
        store(dv_head[key[r] * s.v_stride + column], acc_v[dt][e]);
        store(dk_head[key[r] * s.k_stride + column], acc_k[dt][e] * a.scale);
      }
    }
  }
}

}  // namespace precis::cuda
