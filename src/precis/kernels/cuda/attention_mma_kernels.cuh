// Attention's forward on tensor cores (kernels/attention.h), FlashAttention-2 style, for bf16
// and fp16 heads of a multiple of 16 up to kMmaMaxHeadDim wide. One block per (64-query tile,
// batch·head), four warps of 16 query rows each. For each 64-key tile the block stages K and
// Vᵀ in shared memory; each warp forms its 16 x 64 scores S = Q·Kᵀ with mma.sync m16n8k16
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
// 8 more 16-bit columns a staged row: rows 4 words apart mod 32 banks, so the eight groups'
// reads of a fragment fall in different banks.
constexpr int kMmaPad = 8;
static_assert(kMmaThreads == kAttentionThreads, "first_unpadded_key's tree spans the block");

using MmaKeyTile = uint16_t[kMmaKeys][kMmaMaxHeadDim + kMmaPad];    // K, a key a row
using MmaValueTile = uint16_t[kMmaMaxHeadDim][kMmaKeys + kMmaPad];  // Vᵀ, a head column a row

// Whether the tensor-core forward takes this attention: 16-bit heads of a multiple of 16 up to
// kMmaMaxHeadDim, and no probabilities asked for (those come from the scalar kernel's second
// walk).
inline bool attention_on_tensor_cores(bool sixteen_bit, const AttentionShape& s, bool probs) {
  return sixteen_bit && !probs && s.head_dim % 16 == 0 && s.head_dim <= kMmaMaxHeadDim;
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

template <class T>
PRECIS_KERNEL void attention_forward_mma_kernel(AttentionArgs<T> a, T* out, float* log_sum_exp) {
  PRECIS_SHARED(MmaKeyTile, keys);
  PRECIS_SHARED(MmaValueTile, values);
  PRECIS_SHARED(int64_t[kAttentionThreads], lanes);
  const AttentionShape& s = a.shape;
  const AttentionPair<T> p = attention_pair(a);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const MmaLane ml = mma_lane(lane);
  const int64_t i0 = int64_t(blockIdx.x) * kMmaQueries;
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
  const KeyTiles walk = walked_key_tiles(s, a.causal, a.past, i0, first_key, last_key, uniform_row);

  // Q's A fragments, for every 16 head columns.
  uint32_t qa[kMmaMaxHeadDim / 16][4] = {};
  PRECIS_ATTENTION_UNROLL
  for (int kc = 0; kc < kMmaMaxHeadDim / 16; ++kc) {
    if (kc >= k_steps) break;
    PRECIS_ATTENTION_UNROLL
    for (int r = 0; r < 4; ++r) {
      const int64_t i = i0 + warp * 16 + mma_a_row(lane, r);
      const int c = kc * 16 + mma_a_col(lane, r);
      qa[kc][r] = pack_halves(bits_or_zero(p.q, i, s.q_len, s.q_stride, c),
                              bits_or_zero(p.q, i, s.q_len, s.q_stride, c + 1));
    }
  }

  float max[2] = {-INFINITY, -INFINITY}, sum[2] = {0.0f, 0.0f};
  float acc[kMmaMaxHeadDim / 8][4] = {};
  for (int64_t j0 = walk.begin; j0 < walk.end; j0 += kMmaKeys) {
    __syncthreads();  // the previous tile's readers are done
    for (int e = int(threadIdx.x); e < kMmaKeys * head_dim; e += kMmaThreads) {
      const int key = e / head_dim, c = e % head_dim;
      keys[key][c] = bits_or_zero(p.k, j0 + key, s.k_len, s.k_stride, c);
      values[c][key] = bits_or_zero(p.v, j0 + key, s.k_len, s.v_stride, c);
    }
    __syncthreads();

    // S = Q·Kᵀ, eight 16 x 8 tiles of keys; then each element's score, masked.
    float x[kMmaKeys / 8][4];
    PRECIS_ATTENTION_UNROLL
    for (int nt = 0; nt < kMmaKeys / 8; ++nt) {
      float dots[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      PRECIS_ATTENTION_UNROLL
      for (int kc = 0; kc < kMmaMaxHeadDim / 16; ++kc) {
        if (kc >= k_steps) break;
        const uint16_t* key_row = keys[nt * 8 + ml.group] + kc * 16;
        const uint32_t b[2] = {pack_halves(key_row[mma_b_row(lane, 0)], key_row[mma_b_row(lane, 0) + 1]),
                               pack_halves(key_row[mma_b_row(lane, 1)], key_row[mma_b_row(lane, 1) + 1])};
        mma_m16n8k16<T>(dots, qa[kc], b, dots);
      }
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

    // acc += P·V: the weights (exps, dropped out) in 16 bits are the A fragments of each 16
    // keys, two score tiles side by side; Vᵀ's rows give the B fragments.
    PRECIS_ATTENTION_UNROLL
    for (int kc = 0; kc < kMmaKeys / 16; ++kc) {
      uint16_t w[2][4];
      PRECIS_ATTENTION_UNROLL
      for (int half = 0; half < 2; ++half)
        for (int e = 0; e < 4; ++e) {
          const int nt = 2 * kc + half;
          T rounded;
          store(rounded, dropped(a, p.index, row[e / 2], j0 + nt * 8 + mma_c_col(lane, e), x[nt][e]));
          w[half][e] = rounded.bits;
        }
      const uint32_t pa[4] = {pack_halves(w[0][0], w[0][1]), pack_halves(w[0][2], w[0][3]),
                              pack_halves(w[1][0], w[1][1]), pack_halves(w[1][2], w[1][3])};
      PRECIS_ATTENTION_UNROLL
      for (int dt = 0; dt < kMmaMaxHeadDim / 8; ++dt) {
        if (dt >= d_tiles) break;
        const uint16_t* value_row = values[dt * 8 + ml.group] + kc * 16;
        const uint32_t b[2] = {pack_halves(value_row[mma_b_row(lane, 0)], value_row[mma_b_row(lane, 0) + 1]),
                               pack_halves(value_row[mma_b_row(lane, 1)], value_row[mma_b_row(lane, 1) + 1])};
        mma_m16n8k16<T>(acc[dt], pa, b, acc[dt]);
      }
    }
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

}  // namespace precis::cuda
