// Attention's forward on tensor cores (kernels/attention.h), FlashAttention-2 style, for bf16
// and fp16 heads of a multiple of 16 up to kMmaMaxHeadDim wide, and the fragment helpers the
// backward's kernels share (attention_mma_backward_kernels.cuh). One block per (64-query tile,
// batch·head), four warps of 16 query rows each. For each 64-key tile the block stages K and
// V in shared memory; each warp forms its 16 x 64 scores S = Q·Kᵀ with mma.sync m16n8k16
// (mma.cuh: Q's fragments stay in registers for the whole walk), runs the online softmax on
// them in registers (a row's 16 values per lane, its four lanes joined by shuffles in a fixed
// order), and adds P·V with P rounded to the 16-bit type as the A fragments, as HF's autocast
// rounds the probabilities before its bmm with v. The accumulators, the max and the sum are
// fp32; out = acc / sum is rounded once, and each row's log-sum-exp is kept for the backward.
//
// Scores, masks, bias, dropout and rows that see no key are attention_kernels.cuh's (score,
// key_visible, dropped, the uniform row whose scores all count 0), so the two kernels differ
// only in the products' summation order and P's rounding to 16 bits before P·V. Tiles that no
// row of the block can see are skipped: past the last query's causal limit, before the first
// or after the last unpadded key. Every key of a skipped tile would weigh exactly 0 and leave
// the max alone (its rescale factor exp(0) = 1), so skipping changes no bit; a block with a
// row that sees no key walks them all (that row is uniform over every key).
//
// Split over the keys (flash-decoding): a query tile over more than kMmaSplitKeys keys, the one
// of a decoding step (a beam's query over its cache, a sequence's beams over its encoder's keys)
// or of short targets over a long source, would be one block a (batch, head) pair, too few to
// fill the GPU. Its keys are walked instead by a block each kMmaSplitKeys, each writing its
// rows' (max, sum, accumulator) as partials; attention_split_combine_kernel merges them in split
// order (each rescaled to the rows' overall max) and writes out and the log-sum-exps. The splits
// depend on k_len alone, so a row's bits do not depend on the batch it is in.
#pragma once

#include <cstdint>

#include "precis/kernels/cuda/attention_kernels.cuh"
#include "precis/kernels/cuda/mma.cuh"

namespace precis::cuda {

constexpr int kMmaWarps = 4;
constexpr int kMmaQueries = 16 * kMmaWarps;  // query rows per block
constexpr int kMmaKeys = 64;                 // keys per tile
constexpr int kMmaThreads = 32 * kMmaWarps;
constexpr int kMmaMaxHeadDim = 128;
// The backward holds twice the forward's fragments and accumulators in registers (Q and dO, or
// K and V; dk and dv): heads up to 64 wide (BART's and T5's) fit Hopper's 255 registers a
// thread, 128 would spill. Wider heads take the scalar backward, from the same log-sum-exps.
constexpr int kMmaBackwardMaxHeadDim = 64;
// 8 more 16-bit columns a staged row: rows 4 words apart mod 32 banks, so the eight groups'
// reads of a fragment fall in different banks.
constexpr int kMmaPad = 8;
// Keys a block walks when one query tile's keys are split (two key tiles).
constexpr int64_t kMmaSplitKeys = 2 * kMmaKeys;
static_assert(kMmaThreads == kAttentionThreads, "first_unpadded_key's tree spans the block");

// 64 positions of a head (K, V, Q or dO), a position a row, in 16-bit bits.
using MmaTile = uint16_t[kMmaKeys][kMmaMaxHeadDim + kMmaPad];
static_assert(kMmaKeys == kMmaQueries, "a staged tile holds a block's keys or its queries");

// Whether the tensor-core kernels take this attention: 16-bit heads of a multiple of 16 up to
// kMmaMaxHeadDim (the backward: kMmaBackwardMaxHeadDim), and no probabilities: the forward is not asked for them (the scalar kernel's
// second walk writes them), the backward rebuilds P from the log-sum-exps, not from saved ones.
inline bool attention_on_tensor_cores(bool sixteen_bit, const AttentionShape& s, bool probs,
                                      bool backward = false) {
  return sixteen_bit && !probs && s.head_dim % 16 == 0 &&
         s.head_dim <= (backward ? kMmaBackwardMaxHeadDim : kMmaMaxHeadDim);
}

// The key tiles [begin, end) a query tile starting at i0 walks: all of them when `uniform_row`
// (a row of the block sees no key), else those from the first unpadded key's tile to the last
// unpadded key and the last query's causal limit. Host and device share it: the launcher counts
// the walked tiles for its declared cost.
struct KeyTiles {
  int64_t begin, end;
};
PRECIS_HOST_DEVICE inline KeyTiles walked_key_tiles(const AttentionShape& s, bool causal,
                                                    int64_t past, int64_t i0, int64_t first_key,
                                                    int64_t last_key, bool uniform_row) {
  if (uniform_row) return {0, s.k_len};
  const int64_t last_query = i0 + kMmaQueries - 1 < s.q_len ? i0 + kMmaQueries - 1 : s.q_len - 1;
  int64_t end = attention_math::causal_limit(causal, past, last_query, s.k_len) + 1;
  end = end < last_key + 1 ? end : last_key + 1;
  end = end < s.k_len ? end : s.k_len;
  return {first_key / kMmaKeys * kMmaKeys, end};
}

// The highest key of k_len that the padding mask (row b's) lets through, -1 for none: a max
// over the block, as first_unpadded_key's min.
PRECIS_ATTENTION_DEVICE int64_t last_unpadded_key(const int32_t* key_mask, int64_t k_len,
                                                  int64_t* lanes) {
  const unsigned t = threadIdx.x;
  int64_t last = -1;
  for (int64_t j = k_len - 1 - t; j >= 0; j -= kAttentionThreads)
    if (!key_mask || key_mask[j]) {
      last = j;
      break;
    }
  __syncthreads();  // the lanes' previous reader (first_unpadded_key's result) is done
  lanes[t] = last;
  __syncthreads();
  for (unsigned width = kAttentionThreads / 2; width > 0; width /= 2) {
    if (t < width && lanes[t + width] > lanes[t]) lanes[t] = lanes[t + width];
    __syncthreads();
  }
  return lanes[0];
}

template <class T>
PRECIS_ATTENTION_DEVICE uint16_t bits_or_zero(const T* m, int64_t row, int64_t rows,
                                              int64_t stride, int64_t col) {
  return row < rows ? m[row * stride + col].bits : uint16_t(0);
}

// Rows [row0, row0 + 64) of a head's (rows, stride) matrix into `tile`; 0 past the last row.
// The caller synchronises before (the tile's last readers) and after.
template <class T>
PRECIS_ATTENTION_DEVICE void stage_tile(MmaTile& tile, const T* m, int64_t row0, int64_t rows,
                                        int64_t stride, int head_dim) {
  for (int e = int(threadIdx.x); e < kMmaKeys * head_dim; e += kMmaThreads) {
    const int r = e / head_dim, c = e % head_dim;
    tile[r][c] = bits_or_zero(m, row0 + r, rows, stride, c);
  }
}

// The A fragments of the warp's 16 rows from row0 of a head's matrix, every 16 head columns
// (k_steps of them): Q or dO for the query-side products, K or V for the key side's.
template <class T, int kSteps>
PRECIS_ATTENTION_DEVICE void load_a_fragments(uint32_t (&a)[kSteps][4], const T* m, int64_t row0,
                                              int64_t rows, int64_t stride, int k_steps, int lane) {
  PRECIS_ATTENTION_UNROLL
  for (int kc = 0; kc < kSteps; ++kc) {
    if (kc >= k_steps) break;
    PRECIS_ATTENTION_UNROLL
    for (int r = 0; r < 4; ++r) {
      const int64_t row = row0 + mma_a_row(lane, r);
      const int c = kc * 16 + mma_a_col(lane, r);
      a[kc][r] = pack_halves(bits_or_zero(m, row, rows, stride, c),
                             bits_or_zero(m, row, rows, stride, c + 1));
    }
  }
}

// The 16 x 8 product tile of the warp's A rows with the tile's rows n0 .. n0 + 7 over the head
// columns: B[k][n] = tile[n0 + n][k], so a lane's two values are adjacent in a row.
template <class T, int kSteps>
PRECIS_ATTENTION_DEVICE void product_with_rows(float (&d)[4], const uint32_t (&a)[kSteps][4],
                                               const MmaTile& tile, int n0, int k_steps, int lane) {
  d[0] = d[1] = d[2] = d[3] = 0.0f;
  const uint16_t* row = tile[n0 + lane / 4];
  PRECIS_ATTENTION_UNROLL
  for (int kc = 0; kc < kSteps; ++kc) {
    if (kc >= k_steps) break;
    const int c0 = kc * 16 + mma_b_row(lane, 0), c1 = kc * 16 + mma_b_row(lane, 1);
    const uint32_t b[2] = {pack_halves(row[c0], row[c0 + 1]), pack_halves(row[c1], row[c1 + 1])};
    mma_m16n8k16<T>(d, a[kc], b, d);
  }
}

// d += A · tile[k0 .. k0 + 16)[n0 .. n0 + 8): B[k][n] = tile[k0 + k][n0 + n], a lane's two
// values in adjacent rows (what ldmatrix.trans would load).
template <class T>
PRECIS_ATTENTION_DEVICE void accumulate_with_columns(float (&d)[4], const uint32_t (&a)[4],
                                                     const MmaTile& tile, int k0, int n0, int lane) {
  const int n = n0 + lane / 4, r0 = k0 + mma_b_row(lane, 0), r1 = k0 + mma_b_row(lane, 1);
  const uint32_t b[2] = {pack_halves(tile[r0][n], tile[r0 + 1][n]),
                         pack_halves(tile[r1][n], tile[r1 + 1][n])};
  mma_m16n8k16<T>(d, a, b, d);
}

// The A fragment of 16 columns (two 16 x 8 score tiles side by side, C layout) rounded to T:
// the C layout's elements are the A layout's, tile 2·kc in registers 0 and 1, 2·kc + 1 in 2, 3.
template <class T>
PRECIS_ATTENTION_DEVICE void scores_as_a(uint32_t (&a)[4], const float (&left)[4], const float (&right)[4]) {
  uint16_t w[8];
  for (int e = 0; e < 4; ++e) {
    T l, r;
    store(l, left[e]);
    store(r, right[e]);
    w[e] = l.bits;
    w[4 + e] = r.bits;
  }
  a[0] = pack_halves(w[0], w[1]);
  a[1] = pack_halves(w[2], w[3]);
  a[2] = pack_halves(w[4], w[5]);
  a[3] = pack_halves(w[6], w[7]);
}

// acc[dt] += A · tile[k0 .. k0 + 16)[8·dt .. 8·dt + 8) for the head's d_tiles column tiles, A the
// two score tiles `left` and `right` rounded to T (scores_as_a): P·V, dS·K, Wᵀ·dO and dSᵀ·Q.
template <class T, int kTiles>
PRECIS_ATTENTION_DEVICE void accumulate_scores_times_tile(float (&acc)[kTiles][4], const float (&left)[4],
                                                          const float (&right)[4], const MmaTile& tile,
                                                          int k0, int d_tiles, int lane) {
  uint32_t a[4];
  scores_as_a<T>(a, left, right);
  PRECIS_ATTENTION_UNROLL
  for (int dt = 0; dt < kTiles; ++dt) {
    if (dt >= d_tiles) break;
    accumulate_with_columns<T>(acc[dt], a, tile, k0, dt * 8, lane);
  }
}

// x of a lane's row joined over the row's four lanes (lanes 4g .. 4g + 3): max or sum, the
// same order on every lane, so all four keep the same bits.
PRECIS_ATTENTION_DEVICE float row_max4(float x) {
  float y = __shfl_xor_sync(0xffffffffu, x, 1);
  x = x > y ? x : y;
  y = __shfl_xor_sync(0xffffffffu, x, 2);
  return x > y ? x : y;
}
PRECIS_ATTENTION_DEVICE float row_sum4(float x) {
  x = x + __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// The splits of a forward's keys: one (no partials) unless its queries are one tile and its keys
// more than a split's. Host and device share it.
PRECIS_HOST_DEVICE inline int64_t key_splits(const AttentionShape& s) {
  return s.q_len <= kMmaQueries && s.k_len > kMmaSplitKeys
             ? (s.k_len + kMmaSplitKeys - 1) / kMmaSplitKeys
             : 1;
}

// Floats a row's partial holds: its max, its sum and its head_dim accumulators.
PRECIS_HOST_DEVICE inline int64_t split_partial_width(const AttentionShape& s) {
  return s.head_dim + 2;
}

// Without partials, one block per (query tile, pair) writes out and the log-sum-exps; with them,
// blockIdx.x is the key split of the pair's one query tile and the block writes its partials.
template <class T>
PRECIS_KERNEL void attention_forward_mma_kernel(AttentionArgs<T> a, T* out, float* log_sum_exp,
                                                float* partials) {
  PRECIS_SHARED(MmaTile, keys);
  PRECIS_SHARED(MmaTile, values);
  PRECIS_SHARED(int64_t[kAttentionThreads], lanes);
  const AttentionShape& s = a.shape;
  const AttentionPair<T> p = attention_pair(a);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const MmaLane ml = mma_lane(lane);
  const int64_t i0 = partials ? 0 : int64_t(blockIdx.x) * kMmaQueries;
  const int head_dim = int(s.head_dim), k_steps = head_dim / 16, d_tiles = head_dim / 8;
  const int64_t first_key = first_unpadded_key(p.key_mask, s.k_len, lanes);
  const int64_t last_key = last_unpadded_key(p.key_mask, s.k_len, lanes);

  // This lane's two rows (C/D elements 0, 1 and 2, 3).
  int64_t row[2], limit[2];
  bool in_range[2], uniform[2];
  for (int r = 0; r < 2; ++r) {
    row[r] = i0 + warp * 16 + ml.group + 8 * r;
    in_range[r] = row[r] < s.q_len;
    limit[r] = attention_math::causal_limit(a.causal, a.past, row[r], s.k_len);
    uniform[r] = !row_sees_a_key(a, first_key, row[r]);
  }
  // The block's first query sees the fewest keys: if it sees one, every row does.
  const bool uniform_row = !row_sees_a_key(a, first_key, i0);
  KeyTiles walk = walked_key_tiles(s, a.causal, a.past, i0, first_key, last_key, uniform_row);
  if (partials) {  // this split's share of the walk: whole tiles, as kMmaSplitKeys is
    const int64_t split_begin = int64_t(blockIdx.x) * kMmaSplitKeys;
    walk.begin = walk.begin > split_begin ? walk.begin : split_begin;
    walk.end = walk.end < split_begin + kMmaSplitKeys ? walk.end : split_begin + kMmaSplitKeys;
  }

  uint32_t qa[kMmaMaxHeadDim / 16][4] = {};
  load_a_fragments(qa, p.q, i0 + warp * 16, s.q_len, s.q_stride, k_steps, lane);

  float max[2] = {-INFINITY, -INFINITY}, sum[2] = {0.0f, 0.0f};
  float acc[kMmaMaxHeadDim / 8][4] = {};
  for (int64_t j0 = walk.begin; j0 < walk.end; j0 += kMmaKeys) {
    __syncthreads();  // the previous tile's readers are done
    stage_tile(keys, p.k, j0, s.k_len, s.k_stride, head_dim);
    stage_tile(values, p.v, j0, s.k_len, s.v_stride, head_dim);
    __syncthreads();

    // S = Q·Kᵀ, eight 16 x 8 tiles of keys; then each element's score, masked.
    float x[kMmaKeys / 8][4];
    PRECIS_ATTENTION_UNROLL
    for (int nt = 0; nt < kMmaKeys / 8; ++nt) {
      float dots[4];
      product_with_rows<T>(dots, qa, keys, nt * 8, k_steps, lane);
      PRECIS_ATTENTION_UNROLL
      for (int e = 0; e < 4; ++e) {
        const int r = e / 2;
        const int64_t i = row[r], j = j0 + nt * 8 + mma_c_col(lane, e);
        float v = -INFINITY;  // rows and keys past the end, and hidden keys, weigh nothing
        if (in_range[r] && j < s.k_len)
          v = uniform[r]                                              ? 0.0f
              : attention_math::key_visible(p.key_mask, j, limit[r]) ? score(a, p.bias, dots[e], i, j)
                                                                      : -INFINITY;
        x[nt][e] = v;
      }
    }

    // The online softmax, a row at a time: its max and sum over the row's four lanes.
    float factor[2];
    PRECIS_ATTENTION_UNROLL
    for (int r = 0; r < 2; ++r) {
      float tile_max = -INFINITY;
      PRECIS_ATTENTION_UNROLL
      for (int nt = 0; nt < kMmaKeys / 8; ++nt)
        for (int e = 2 * r; e < 2 * r + 2; ++e) tile_max = x[nt][e] > tile_max ? x[nt][e] : tile_max;
      tile_max = row_max4(tile_max);
      const float new_max = max[r] > tile_max ? max[r] : tile_max;
      factor[r] = rescale_factor(max[r], new_max);
      float tile_sum = 0.0f;
      PRECIS_ATTENTION_UNROLL
      for (int nt = 0; nt < kMmaKeys / 8; ++nt)
        for (int e = 2 * r; e < 2 * r + 2; ++e) {
          x[nt][e] = online_exp(x[nt][e], new_max);
          tile_sum += x[nt][e];
        }
      sum[r] = sum[r] * factor[r] + row_sum4(tile_sum);
      max[r] = new_max;
    }
    PRECIS_ATTENTION_UNROLL
    for (int dt = 0; dt < kMmaMaxHeadDim / 8; ++dt)
      for (int e = 0; e < 4; ++e) acc[dt][e] *= factor[e / 2];

    // acc += P·V: the weights (exps, dropped out) in 16 bits, 16 keys at a time.
    PRECIS_ATTENTION_UNROLL
    for (int kc = 0; kc < kMmaKeys / 16; ++kc) {
      float w[2][4];
      PRECIS_ATTENTION_UNROLL
      for (int half = 0; half < 2; ++half)
        for (int e = 0; e < 4; ++e) {
          const int nt = 2 * kc + half;
          w[half][e] = dropped(a, p.index, row[e / 2], j0 + nt * 8 + mma_c_col(lane, e), x[nt][e]);
        }
      accumulate_scores_times_tile<T>(acc, w[0], w[1], values, kc * 16, d_tiles, lane);
    }
  }

  if (partials) {
    const int64_t width = split_partial_width(s);
    float* split =
        partials + (p.index * int64_t(gridDim.x) + int64_t(blockIdx.x)) * s.q_len * width;
    PRECIS_ATTENTION_UNROLL
    for (int r = 0; r < 2; ++r) {
      if (!in_range[r]) continue;
      float* partial = split + row[r] * width;
      if (ml.thread == 0) {  // the row's four lanes hold the same max and sum
        partial[0] = max[r];
        partial[1] = sum[r];
      }
      PRECIS_ATTENTION_UNROLL
      for (int dt = 0; dt < kMmaMaxHeadDim / 8; ++dt) {
        if (dt >= d_tiles) break;
        for (int e = 2 * r; e < 2 * r + 2; ++e)
          partial[2 + dt * 8 + mma_c_col(lane, e)] = acc[dt][e];
      }
    }
    return;
  }
  T* out_head = out + p.batch * s.q_len * s.out_stride + p.head * s.head_dim;
  PRECIS_ATTENTION_UNROLL
  for (int r = 0; r < 2; ++r) {
    if (!in_range[r]) continue;
    const float inverse = sum[r] > 0.0f ? 1.0f / sum[r] : 0.0f;
    PRECIS_ATTENTION_UNROLL
    for (int dt = 0; dt < kMmaMaxHeadDim / 8; ++dt) {
      if (dt >= d_tiles) break;
      for (int e = 2 * r; e < 2 * r + 2; ++e)
        store(out_head[row[r] * s.out_stride + dt * 8 + mma_c_col(lane, e)], acc[dt][e] * inverse);
    }
    if (log_sum_exp && ml.thread == 0)  // a uniform row's is 0, as the scalar kernel keeps it
      log_sum_exp[p.index * s.q_len + row[r]] = uniform[r] ? 0.0f : max[r] + std::log(sum[r]);
  }
}

// The split forward's second launch, a block per pair: each row's partials merged in split
// order, each rescaled to the row's overall max (a split that walked no visible key adds 0), then
// out = acc / sum rounded once and the log-sum-exp, as the unsplit kernel writes them.
template <class T>
PRECIS_KERNEL void attention_split_combine_kernel(AttentionArgs<T> a, const float* partials,
                                                  int64_t splits, T* out, float* log_sum_exp) {
  PRECIS_SHARED(int64_t[kAttentionThreads], lanes);
  const AttentionShape& s = a.shape;
  const AttentionPair<T> p = attention_pair(a);
  const int64_t first_key = first_unpadded_key(p.key_mask, s.k_len, lanes);
  const int64_t width = split_partial_width(s), split_stride = s.q_len * width;
  const float* pair_partials = partials + p.index * splits * split_stride;
  T* out_head = out + p.batch * s.q_len * s.out_stride + p.head * s.head_dim;
  // Element (row, c) of the head's output for c < head_dim; c = head_dim: the row's log-sum-exp.
  for (int64_t e = threadIdx.x; e < s.q_len * (s.head_dim + 1); e += kAttentionThreads) {
    const int64_t row = e / (s.head_dim + 1), c = e % (s.head_dim + 1);
    const float* first = pair_partials + row * width;
    float max = -INFINITY;
    for (int64_t k = 0; k < splits; ++k) {
      const float m = first[k * split_stride];
      max = m > max ? m : max;
    }
    float sum = 0.0f, value = 0.0f;
    for (int64_t k = 0; k < splits; ++k) {
      const float* partial = first + k * split_stride;
      const float factor = rescale_factor(partial[0], max);
      sum += partial[1] * factor;
      if (c < s.head_dim) value += partial[2 + c] * factor;
    }
    if (c < s.head_dim) {
      store(out_head[row * s.out_stride + c], value * (sum > 0.0f ? 1.0f / sum : 0.0f));
    } else if (log_sum_exp) {  // a uniform row's is 0, as the unsplit kernels keep it
      log_sum_exp[p.index * s.q_len + row] =
          row_sees_a_key(a, first_key, row) ? max + std::log(sum) : 0.0f;
    }
  }
}

}  // namespace precis::cuda
