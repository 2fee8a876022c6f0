// The CUDA twin's kernels of attention (kernels/attention.h), flash-style: no (Tq, Tk) matrix
// is held anywhere unless the caller asks for it (probs, d_scores).
//
// - attention_forward_kernel: one block per (query tile, batch·head). It walks the key tiles
//   in order with an online softmax (running max m and sum l per query row, the output
//   accumulator rescaled by exp(m_old - m_new)), then writes out = acc / l and each row's
//   log-sum-exp m + log l; probs, when asked for, in a second walk as exp(s - lse).
// - attention_backward_query_kernel: one block per (query tile, batch·head). A first walk over
//   the key tiles sums D_i = Σ_j P_ij·dP_ij (in double, in key order, as the CPU does; the
//   backward has no `out` to take D as rowsum(dout ∘ out)), written to row_dots; a second walk
//   forms dS = P ∘ (dP - D) tile by tile into dq (and d_scores when asked for).
// - attention_backward_key_kernel: one block per (key tile, batch·head), walking the query
//   tiles in order into dk and dv with row_dots from the query kernel.
// Each output element is written by one thread after a fixed-order sum: no atomics, the same
// bits on every run. P is rebuilt from the saved log-sum-exp by attention_math.h's expression
// (or read from saved probs), the dropout mask is Philox element (b, h, i, j) of the flat
// (B, H, Tq, Tk) space as on the CPU, and a row with no visible key is uniform over every key.
//
// A block is kAttentionTile rows (queries, or keys in the key kernel) of kAttentionLanes
// threads. Thread (row, lane) owns the tile's columns lane + kAttentionLanes·u of a score tile
// and the head-dim columns lane + kAttentionLanes·u of each kAttentionChunk-wide chunk of an
// accumulator; operands pass through shared memory one (tile, chunk) at a time.
//
// T is the element type (element.cuh) of q, k, v, out, dout, dq, dk and dv: fp32, or bf16/fp16
// loaded to float as they are staged and each output rounded once from its fp32 accumulator.
// The mask's bias, probs, the log-sum-exps, the row terms and d_scores are fp32 in every form,
// and shared memory, scores, softmax and sums are the fp32 kernels' own.
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/attention.h"
#include "precis/kernels/attention_math.h"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/dropout_math.h"

// The kernels' helpers run on the device only (they synchronise the block). The accumulators'
// loops are unrolled under nvcc so that their indices are constants and the arrays registers.
#if defined(__CUDACC__)
#define PRECIS_ATTENTION_DEVICE static __device__ __forceinline__
#define PRECIS_ATTENTION_UNROLL _Pragma("unroll")
#else
#define PRECIS_ATTENTION_DEVICE inline
#define PRECIS_ATTENTION_UNROLL
#endif

namespace precis::cuda {

constexpr int kAttentionTile = 16;  // queries (keys) per block and keys (queries) per step
constexpr int kAttentionLanes = 8;  // threads per tile row
constexpr int kAttentionThreads = kAttentionTile * kAttentionLanes;
constexpr int kAttentionChunk = 64;  // head-dim columns staged in shared memory at a time
constexpr int kAttentionMaxHeadDim = 256;
constexpr int kAttentionChunks = kAttentionMaxHeadDim / kAttentionChunk;
constexpr int kTileColumnsPerLane = kAttentionTile / kAttentionLanes;
constexpr int kChunkColumnsPerLane = kAttentionChunk / kAttentionLanes;

// What every attention kernel reads: the shape, the operands and the mask.
template <class T>
struct AttentionArgs {
  AttentionShape shape;
  const T *q, *k, *v;       // (B, Tq | Tk, ·) with the shape's strides
  const int32_t* key_mask;  // (B, Tk) or null
  bool causal;
  int64_t past;
  const float* bias;  // (H, Tq, Tk) or null
  float scale;
  DropoutRange dropout;
};

// An output accumulator of one thread: columns chunk·kAttentionChunk + lane + kAttentionLanes·u.
// Indexed by unrolled constants only, so it stays in registers.
using ChunkAccumulator = float[kAttentionChunks][kChunkColumnsPerLane];

// Shared staging of one (tile, chunk) of two operands.
using StagedChunk = float[kAttentionTile][kAttentionChunk];
using ScoreTile = float[kAttentionTile][kAttentionTile];

// The lowest key of k_len that the padding mask (row b's) lets through, k_len for none: a
// min over the block, a tree in shared memory. lanes: kAttentionThreads slots, not reused.
PRECIS_ATTENTION_DEVICE int64_t first_unpadded_key(const int32_t* key_mask, int64_t k_len,
                                                   int64_t* lanes) {
  const unsigned t = threadIdx.x;
  int64_t first = k_len;
  for (int64_t j = t; j < k_len; j += kAttentionThreads)
    if (!key_mask || key_mask[j]) {
      first = j;
      break;
    }
  lanes[t] = first;
  __syncthreads();
  for (unsigned width = kAttentionThreads / 2; width > 0; width /= 2) {
    if (t < width && lanes[t + width] < lanes[t]) lanes[t] = lanes[t + width];
    __syncthreads();
  }
  return lanes[0];
}

// Whether query i sees any key: the first unpadded one is within its causal limit.
template <class T>
PRECIS_ATTENTION_DEVICE bool row_sees_a_key(const AttentionArgs<T>& a, int64_t first_unpadded,
                                            int64_t i) {
  return first_unpadded < a.shape.k_len &&
         first_unpadded <= attention_math::causal_limit(a.causal, a.past, i, a.shape.k_len);
}

// Rows [row0, row0 + kAttentionTile) of a (rows, stride) matrix, columns [col0, col0 +
// kAttentionChunk) of its head, into `staged` as floats; zero past the last row or column.
template <class T>
PRECIS_ATTENTION_DEVICE void stage_chunk(StagedChunk& staged, const T* m, int64_t stride,
                                         int64_t row0, int64_t rows, int64_t col0,
                                         int64_t head_dim) {
  for (int e = int(threadIdx.x); e < kAttentionTile * kAttentionChunk; e += kAttentionThreads) {
    const int r = e / kAttentionChunk, c = e % kAttentionChunk;
    const int64_t row = row0 + r, col = col0 + c;
    staged[r][c] = row < rows && col < head_dim ? load(m[row * stride + col]) : 0.0f;
  }
}

// dots[u] = A[a0 + row] · B[b0 + lane + kAttentionLanes·u] over the head's columns, in column
// order, for this thread's (row, lane); rows past the end give 0.
template <class T>
PRECIS_ATTENTION_DEVICE void tile_dots(const T* a, int64_t a_stride, int64_t a0, int64_t a_rows,
                                       const T* b, int64_t b_stride, int64_t b0, int64_t b_rows,
                                       int64_t head_dim, StagedChunk& staged_a,
                                       StagedChunk& staged_b, float (&dots)[kTileColumnsPerLane]) {
  const int row = int(threadIdx.x) / kAttentionLanes, lane = int(threadIdx.x) % kAttentionLanes;
  PRECIS_ATTENTION_UNROLL
  for (int u = 0; u < kTileColumnsPerLane; ++u) dots[u] = 0.0f;
  for (int64_t col0 = 0; col0 < head_dim; col0 += kAttentionChunk) {
    stage_chunk(staged_a, a, a_stride, a0, a_rows, col0, head_dim);
    stage_chunk(staged_b, b, b_stride, b0, b_rows, col0, head_dim);
    __syncthreads();
    const int64_t width = head_dim - col0 < kAttentionChunk ? head_dim - col0 : kAttentionChunk;
    PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kTileColumnsPerLane; ++u) {
      const int other = lane + kAttentionLanes * u;
      float sum = dots[u];
      for (int64_t c = 0; c < width; ++c) sum += staged_a[row][c] * staged_b[other][c];
      dots[u] = sum;
    }
    __syncthreads();
  }
}

// acc += weights[row] · M[m0 .. m0 + kAttentionTile) for this thread's row and columns: the
// tile's terms in order, onto what acc holds. weights must be 0 past M's last row. The first
// barrier also publishes the caller's writes to `weights`.
template <class T>
PRECIS_ATTENTION_DEVICE void accumulate_tile(ChunkAccumulator& acc, const ScoreTile& weights,
                                             const T* m, int64_t stride, int64_t m0, int64_t m_rows,
                                             int64_t head_dim, StagedChunk& staged) {
  const int row = int(threadIdx.x) / kAttentionLanes, lane = int(threadIdx.x) % kAttentionLanes;
  PRECIS_ATTENTION_UNROLL
  for (int chunk = 0; chunk < kAttentionChunks; ++chunk) {
    if (int64_t(chunk) * kAttentionChunk >= head_dim) break;  // the same for the whole block
    stage_chunk(staged, m, stride, m0, m_rows, int64_t(chunk) * kAttentionChunk, head_dim);
    __syncthreads();
    PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kChunkColumnsPerLane; ++u) {
      const int column = lane + kAttentionLanes * u;
      float sum = acc[chunk][u];
      PRECIS_ATTENTION_UNROLL
      for (int j = 0; j < kAttentionTile; ++j) sum += weights[row][j] * staged[j][column];
      acc[chunk][u] = sum;
    }
    __syncthreads();
  }
}

// Row `row` of the head's (rows, stride) matrix from this thread's accumulator columns, times
// `factor`: each element rounded once to T.
template <class T>
PRECIS_ATTENTION_DEVICE void store_row(const ChunkAccumulator& acc, float factor, T* m,
                                       int64_t stride, int64_t row, int64_t head_dim) {
  const int lane = int(threadIdx.x) % kAttentionLanes;
  PRECIS_ATTENTION_UNROLL
  for (int chunk = 0; chunk < kAttentionChunks; ++chunk) PRECIS_ATTENTION_UNROLL
  for (int u = 0; u < kChunkColumnsPerLane; ++u) {
    const int64_t column = int64_t(chunk) * kAttentionChunk + lane + kAttentionLanes * u;
    if (column < head_dim) store(m[row * stride + column], acc[chunk][u] * factor);
  }
}

// The scaled, biased score of (i, j) from its dot product, as the CPU forms it.
template <class T>
PRECIS_ATTENTION_DEVICE float score(const AttentionArgs<T>& a, const float* bias_plane, float dot,
                                    int64_t i, int64_t j) {
  float s = a.scale * dot;
  if (bias_plane) s += bias_plane[i * a.shape.k_len + j];
  return s;
}

// x times element (i, j) of pair p's dropout mask and 1/(1-p); x without dropout.
template <class T>
PRECIS_ATTENTION_DEVICE float dropped(const AttentionArgs<T>& a, int64_t pair, int64_t i, int64_t j,
                                      float x) {
  const DropoutRange& d = a.dropout;
  if (!d.active) return x;
  const uint64_t index =
      d.first + uint64_t(pair * a.shape.q_len * a.shape.k_len) + uint64_t(i * a.shape.k_len + j);
  return dropout_math::apply(x, dropout_math::element_bits(d.seed, d.stream, index), d.threshold,
                             d.scale);
}

// P_ij from what the forward saved: the stored probability, else rebuilt from the score's dot
// product and the row's log-sum-exp.
template <class T>
PRECIS_ATTENTION_DEVICE float saved_probability(const AttentionArgs<T>& a, int64_t pair,
                                                const float* probs, const float* log_sum_exp,
                                                const int32_t* key_mask, const float* bias_plane,
                                                bool sees_a_key, float dot, int64_t i, int64_t j) {
  const int64_t q_len = a.shape.q_len, k_len = a.shape.k_len;
  if (probs) return probs[(pair * q_len + i) * k_len + j];
  const bool visible = attention_math::key_visible(
      key_mask, j, attention_math::causal_limit(a.causal, a.past, i, k_len));
  return attention_math::probability_from_lse(score(a, bias_plane, dot, i, j), visible, sees_a_key,
                                              k_len, log_sum_exp[pair * q_len + i]);
}

// The online softmax's factor for what was summed under the old max; 0 before any visible key.
PRECIS_ATTENTION_DEVICE float rescale_factor(float old_max, float new_max) {
  return old_max == -INFINITY ? 0.0f : exp_math::exp(old_max - new_max);
}

// exp(s - max) under the running max; 0 while the row has seen no visible key.
PRECIS_ATTENTION_DEVICE float online_exp(float s, float max) {
  return max == -INFINITY ? 0.0f : exp_math::exp(s - max);
}

// The pieces of one (batch, head) pair a block works on.
template <class T>
struct AttentionPair {
  int64_t index, batch, head;
  const T *q, *k, *v;       // the head's column 0 of position 0
  const int32_t* key_mask;  // the batch row's (Tk) or null
  const float* bias;        // the head's (Tq, Tk) plane or null
};

template <class T>
PRECIS_ATTENTION_DEVICE AttentionPair<T> attention_pair(const AttentionArgs<T>& a) {
  const AttentionShape& s = a.shape;
  const int64_t index = blockIdx.y, b = index / s.heads, h = index % s.heads;
  return {index,
          b,
          h,
          a.q + b * s.q_len * s.q_stride + h * s.head_dim,
          a.k + b * s.k_len * s.k_stride + h * s.head_dim,
          a.v + b * s.k_len * s.v_stride + h * s.head_dim,
          a.key_mask ? a.key_mask + b * s.k_len : nullptr,
          a.bias ? a.bias + h * s.q_len * s.k_len : nullptr};
}

// out (and probs, log_sum_exp when not null) of one query tile of one pair.
template <class T>
PRECIS_KERNEL void attention_forward_kernel(AttentionArgs<T> a, T* out, float* probs,
                                            float* log_sum_exp) {
  PRECIS_SHARED(StagedChunk, staged_a);
  PRECIS_SHARED(StagedChunk, staged_b);
  PRECIS_SHARED(ScoreTile, scores);
  PRECIS_SHARED(ScoreTile, exps);
  PRECIS_SHARED(ScoreTile, weights);  // weights: exps, dropped out
  PRECIS_SHARED(int64_t[kAttentionThreads], lanes);
  const AttentionShape& s = a.shape;
  const AttentionPair<T> p = attention_pair(a);
  const int row = int(threadIdx.x) / kAttentionLanes, lane = int(threadIdx.x) % kAttentionLanes;
  const int64_t i0 = int64_t(blockIdx.x) * kAttentionTile, i = i0 + row;
  const bool in_range = i < s.q_len;
  const int64_t limit = attention_math::causal_limit(a.causal, a.past, i, s.k_len);
  // A row that sees no key is uniform over every key: all its scores count as 0.
  const bool uniform = !row_sees_a_key(a, first_unpadded_key(p.key_mask, s.k_len, lanes), i);

  float max = -INFINITY, sum = 0.0f;
  ChunkAccumulator acc = {};
  for (int64_t j0 = 0; j0 < s.k_len; j0 += kAttentionTile) {
    float dots[kTileColumnsPerLane];
    tile_dots(p.q, s.q_stride, i0, s.q_len, p.k, s.k_stride, j0, s.k_len, s.head_dim, staged_a,
              staged_b, dots);
    PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kTileColumnsPerLane; ++u) {
      const int column = lane + kAttentionLanes * u;
      const int64_t j = j0 + column;
      float x = -INFINITY;  // rows and keys past the end, and hidden keys, weigh nothing
      if (in_range && j < s.k_len)
        x = uniform                                             ? 0.0f
            : attention_math::key_visible(p.key_mask, j, limit) ? score(a, p.bias, dots[u], i, j)
                                                                : -INFINITY;
      scores[row][column] = x;
    }
    __syncthreads();
    // Every lane of a row reads the row's scores and keeps the same max and sum.
    float tile_max = -INFINITY;
    for (int c = 0; c < kAttentionTile; ++c)
      tile_max = scores[row][c] > tile_max ? scores[row][c] : tile_max;
    const float new_max = max > tile_max ? max : tile_max;
    const float factor = rescale_factor(max, new_max);
    PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kTileColumnsPerLane; ++u) {
      const int column = lane + kAttentionLanes * u;
      const float e = online_exp(scores[row][column], new_max);
      exps[row][column] = e;
      weights[row][column] = dropped(a, p.index, i, j0 + column, e);
    }
    __syncthreads();
    float tile_sum = 0.0f;
    for (int c = 0; c < kAttentionTile; ++c) tile_sum += exps[row][c];
    sum = sum * factor + tile_sum;
    max = new_max;
    PRECIS_ATTENTION_UNROLL
    for (int chunk = 0; chunk < kAttentionChunks; ++chunk) PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kChunkColumnsPerLane; ++u) acc[chunk][u] *= factor;
    accumulate_tile(acc, weights, p.v, s.v_stride, j0, s.k_len, s.head_dim, staged_a);
  }
  const float lse = max + std::log(sum);  // a uniform row's: 0 + log Tk
  if (in_range) {
    store_row(acc, sum > 0.0f ? 1.0f / sum : 0.0f,
              out + p.batch * s.q_len * s.out_stride + p.head * s.head_dim, s.out_stride, i,
              s.head_dim);
    if (log_sum_exp && lane == 0) log_sum_exp[p.index * s.q_len + i] = uniform ? 0.0f : lse;
  }
  if (!probs) return;
  // The softmax itself, before dropout, for a caller that keeps it: exp(s - lse) per tile.
  for (int64_t j0 = 0; j0 < s.k_len; j0 += kAttentionTile) {
    float dots[kTileColumnsPerLane];
    tile_dots(p.q, s.q_stride, i0, s.q_len, p.k, s.k_stride, j0, s.k_len, s.head_dim, staged_a,
              staged_b, dots);
    PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kTileColumnsPerLane; ++u) {
      const int64_t j = j0 + lane + kAttentionLanes * u;
      if (in_range && j < s.k_len)
        probs[(p.index * s.q_len + i) * s.k_len + j] = attention_math::probability_from_lse(
            score(a, p.bias, dots[u], i, j), attention_math::key_visible(p.key_mask, j, limit),
            !uniform, s.k_len, lse);
    }
  }
}

// dq (and d_scores) of one query tile of one pair; row_dots gets the tile's D_i.
template <class T>
PRECIS_KERNEL void attention_backward_query_kernel(AttentionArgs<T> a, const T* dout,
                                                   const float* probs, const float* log_sum_exp,
                                                   float* row_dots, T* dq, float* d_scores) {
  PRECIS_SHARED(StagedChunk, staged_a);
  PRECIS_SHARED(StagedChunk, staged_b);
  PRECIS_SHARED(ScoreTile, p_tile);
  PRECIS_SHARED(ScoreTile, dp_tile);
  PRECIS_SHARED(ScoreTile, ds_tile);
  PRECIS_SHARED(int64_t[kAttentionThreads], lanes);
  const AttentionShape& s = a.shape;
  const AttentionPair<T> p = attention_pair(a);
  const int row = int(threadIdx.x) / kAttentionLanes, lane = int(threadIdx.x) % kAttentionLanes;
  const int64_t i0 = int64_t(blockIdx.x) * kAttentionTile, i = i0 + row;
  const bool in_range = i < s.q_len;
  const bool sees_a_key = row_sees_a_key(a, first_unpadded_key(p.key_mask, s.k_len, lanes), i);
  const T* dout_head = dout + p.batch * s.q_len * s.out_stride + p.head * s.head_dim;

  // This thread's P and dP of key tile j0, in p_tile and dp_tile (0 outside the shape).
  auto probabilities = [&](int64_t j0) {
    float dots[kTileColumnsPerLane] = {};
    if (!probs)
      tile_dots(p.q, s.q_stride, i0, s.q_len, p.k, s.k_stride, j0, s.k_len, s.head_dim, staged_a,
                staged_b, dots);
    float dout_v[kTileColumnsPerLane];
    tile_dots(dout_head, s.out_stride, i0, s.q_len, p.v, s.v_stride, j0, s.k_len, s.head_dim,
              staged_a, staged_b, dout_v);
    PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kTileColumnsPerLane; ++u) {
      const int column = lane + kAttentionLanes * u;
      const int64_t j = j0 + column;
      const bool inside = in_range && j < s.k_len;
      p_tile[row][column] = inside ? saved_probability(a, p.index, probs, log_sum_exp, p.key_mask,
                                                       p.bias, sees_a_key, dots[u], i, j)
                                   : 0.0f;
      dp_tile[row][column] = inside ? dropped(a, p.index, i, j, dout_v[u]) : 0.0f;
    }
  };

  // D_i = Σ_j P_ij·dP_ij, in double and key order: the softmax backward's row term.
  double dot = 0.0;
  for (int64_t j0 = 0; j0 < s.k_len; j0 += kAttentionTile) {
    probabilities(j0);
    __syncthreads();
    for (int c = 0; c < kAttentionTile && j0 + c < s.k_len; ++c)
      dot += double(p_tile[row][c]) * dp_tile[row][c];
    __syncthreads();
  }
  const float row_dot = float(dot);
  if (in_range && lane == 0) row_dots[p.index * s.q_len + i] = row_dot;

  // dS = P ∘ (dP - D);  dq = scale · dS · k.
  ChunkAccumulator acc = {};
  for (int64_t j0 = 0; j0 < s.k_len; j0 += kAttentionTile) {
    probabilities(j0);
    PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kTileColumnsPerLane; ++u) {
      const int column = lane + kAttentionLanes * u;
      const int64_t j = j0 + column;
      const float ds = p_tile[row][column] * (dp_tile[row][column] - row_dot);
      ds_tile[row][column] = ds;
      if (d_scores && in_range && j < s.k_len) d_scores[(p.index * s.q_len + i) * s.k_len + j] = ds;
    }
    accumulate_tile(acc, ds_tile, p.k, s.k_stride, j0, s.k_len, s.head_dim, staged_a);
  }
  if (in_range)
    store_row(acc, a.scale, dq + p.batch * s.q_len * s.q_stride + p.head * s.head_dim, s.q_stride,
              i, s.head_dim);
}

// dk and dv of one key tile of one pair, from the query kernel's row_dots.
template <class T>
PRECIS_KERNEL void attention_backward_key_kernel(AttentionArgs<T> a, const T* dout,
                                                 const float* probs, const float* log_sum_exp,
                                                 const float* row_dots, T* dk, T* dv) {
  PRECIS_SHARED(StagedChunk, staged_a);
  PRECIS_SHARED(StagedChunk, staged_b);
  PRECIS_SHARED(ScoreTile, w_tile);
  PRECIS_SHARED(ScoreTile, ds_tile);  // [key][query]: dropped P, and dS
  PRECIS_SHARED(int64_t[kAttentionThreads], lanes);
  const AttentionShape& s = a.shape;
  const AttentionPair<T> p = attention_pair(a);
  const int row = int(threadIdx.x) / kAttentionLanes, lane = int(threadIdx.x) % kAttentionLanes;
  const int64_t j0 = int64_t(blockIdx.x) * kAttentionTile, j = j0 + row;
  const bool in_range = j < s.k_len;
  const int64_t first_unpadded = first_unpadded_key(p.key_mask, s.k_len, lanes);
  const T* dout_head = dout + p.batch * s.q_len * s.out_stride + p.head * s.head_dim;

  ChunkAccumulator acc_v = {}, acc_k = {};
  for (int64_t i0 = 0; i0 < s.q_len; i0 += kAttentionTile) {
    // k_j · q_i and v_j · dout_i: the query kernel's products, factors swapped.
    float dots[kTileColumnsPerLane] = {};
    if (!probs)
      tile_dots(p.k, s.k_stride, j0, s.k_len, p.q, s.q_stride, i0, s.q_len, s.head_dim, staged_a,
                staged_b, dots);
    float v_dout[kTileColumnsPerLane];
    tile_dots(p.v, s.v_stride, j0, s.k_len, dout_head, s.out_stride, i0, s.q_len, s.head_dim,
              staged_a, staged_b, v_dout);
    PRECIS_ATTENTION_UNROLL
    for (int u = 0; u < kTileColumnsPerLane; ++u) {
      const int column = lane + kAttentionLanes * u;
      const int64_t i = i0 + column;
      float w = 0.0f, ds = 0.0f;
      if (in_range && i < s.q_len) {
        const float prob = saved_probability(a, p.index, probs, log_sum_exp, p.key_mask, p.bias,
                                             row_sees_a_key(a, first_unpadded, i), dots[u], i, j);
        w = dropped(a, p.index, i, j, prob);
        ds = prob * (dropped(a, p.index, i, j, v_dout[u]) - row_dots[p.index * s.q_len + i]);
      }
      w_tile[row][column] = w;
      ds_tile[row][column] = ds;
    }
    // dv = Wᵀ · dout;  dk = scale · dSᵀ · q.
    accumulate_tile(acc_v, w_tile, dout_head, s.out_stride, i0, s.q_len, s.head_dim, staged_a);
    accumulate_tile(acc_k, ds_tile, p.q, s.q_stride, i0, s.q_len, s.head_dim, staged_a);
  }
  if (in_range) {
    store_row(acc_v, 1.0f, dv + p.batch * s.k_len * s.v_stride + p.head * s.head_dim, s.v_stride, j,
              s.head_dim);
    store_row(acc_k, a.scale, dk + p.batch * s.k_len * s.k_stride + p.head * s.head_dim, s.k_stride,
              j, s.head_dim);
  }
}

}  // namespace precis::cuda
