// The CUDA twin of attention (kernels/attention.h): the flash-style kernels of
// attention_kernels.cuh, in fp32 and in bf16/fp16, and the tensor-core kernels
// (attention_mma_kernels.cuh, attention_mma_backward_kernels.cuh) where they take the shape. The backward's row terms
// D_i = Σ_j P_ij·dP_ij go through the scratch buffer from the query kernel to the key kernel,
// in stream order.
#include <algorithm>
#include <string>
#include <type_traits>

#include "precis/core/error.h"
#include "precis/kernels/cuda/attention_kernels.cuh"
#include "precis/kernels/cuda/attention_mma_backward_kernels.cuh"
#include "precis/kernels/cuda/attention_mma_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

// The blocks' tiles hold kAttentionMaxHeadDim columns per row and the grid's y is (batch, head).
void check_attention_shape(const AttentionShape& s) {
  check(s.head_dim <= kAttentionMaxHeadDim,
        "attention on CUDA: head dim " + std::to_string(s.head_dim) + " is over the kernels' " +
            std::to_string(kAttentionMaxHeadDim));
  check(s.batch * s.heads <= 65535, "attention on CUDA: batch x heads = " +
                                        std::to_string(s.batch * s.heads) + " is over 65535");
}

unsigned tiles(int64_t n) { return unsigned((n + kAttentionTile - 1) / kAttentionTile); }

// The declared cost of an attention kernel (launch_cost.h). Its score matrix is B·H·Tq·Tk
// entries, each a D-long dot product per product the kernel forms (`products`: QKᵀ, PV, dO·Vᵀ,
// dS·K, ... each 2·D operations an entry, on the CUDA cores: these kernels are scalar fp32),
// plus per entry the softmax's exp and sums (about 5) and, with dropout, its Philox draw (about
// 25). Every tile is computed, also past a causal limit. Bytes: the operands' footprints
// (`reads` of q's size and k's size), the saved statistics and the outputs.
template <class T>
LaunchCost attention_cost(const AttentionShape& s, double products, double q_like, double k_like,
                          const int32_t* key_mask, const float* bias, bool dropout,
                          double extra_read, double extra_written) {
  const double scores = double(s.batch * s.heads * s.q_len * s.k_len);
  const double q_bytes = double(s.batch * s.q_len * s.heads * s.head_dim) * sizeof(T);
  const double k_bytes = double(s.batch * s.k_len * s.heads * s.head_dim) * sizeof(T);
  const double read = q_like * q_bytes + k_like * k_bytes +
                      (key_mask ? double(s.batch * s.k_len) * sizeof(int32_t) : 0) +
                      (bias ? double(s.heads * s.q_len * s.k_len) * sizeof(float) : 0) + extra_read;
  const double flops = scores * (products * 2.0 * double(s.head_dim) + 5.0 + (dropout ? 25.0 : 0.0));
  return {read, extra_written, flops, 0};
}

template <class T>
AttentionArgs<T> attention_args(const AttentionShape& s, const T* q, const T* k, const T* v,
                                const int32_t* key_mask, bool causal, int64_t past,
                                const float* bias, float scale, const DropoutRange& dropout) {
  return {s, q, k, v, key_mask, causal, past, bias, scale, dropout};
}

// The (query tile, key tile) pairs a tensor-core kernel walks when the causal limit is its only
// skip (the padding's skips are the device's to find), and the bias entries they cover: over the
// query tiles, each walking its key tiles (the forward, the backward's query kernel; every key
// tile with `all`), or over the key tiles, each walking its query tiles (the key kernel).
struct WalkedTiles {
  double tiles = 0, bias_entries = 0;
};
WalkedTiles walked_tiles(const AttentionShape& s, bool causal, int64_t past, bool by_keys, bool all = false) {
  WalkedTiles w;
  auto add = [&](int64_t i0, int64_t j0) {
    w.tiles += 1;
    w.bias_entries += double(std::min<int64_t>(kMmaQueries, s.q_len - i0) * std::min<int64_t>(kMmaKeys, s.k_len - j0));
  };
  if (!by_keys)
    for (int64_t i0 = 0; i0 < s.q_len; i0 += kMmaQueries) {
      const KeyTiles walk = all ? KeyTiles{0, s.k_len} : walked_key_tiles(s, causal, past, i0, 0, s.k_len - 1, false);
      for (int64_t j0 = walk.begin; j0 < walk.end; j0 += kMmaKeys) add(i0, j0);
    }
  else
    for (int64_t j0 = 0; j0 < s.k_len; j0 += kMmaKeys) {
      const KeyTiles walk = walked_query_tiles(s, causal, past, j0, 0, s.k_len - 1, false);
      for (int64_t i0 = walk.begin; i0 < walk.end; i0 += kMmaQueries) add(i0, j0);
    }
  return w;
}

// The tensor-core forward (attention_mma_kernels.cuh). Its declared cost counts the key tiles
// the causal limit lets it walk (the padding's skips are the device's to find: not counted), each
// tile 64 x 64 scores formed whole on the tensor cores, QKᵀ and PV at 2·D operations an entry.
// The softmax is not declared apart: FlashAttention-2's published rate, which the cost model
// prices these FLOPs at, is its whole forward, softmax included. Dropout's Philox draws (about
// 25 operations a score) are extra work that rate does not include, so they are declared on the
// CUDA cores. Bytes: q, k and v once, the mask, the bias entries of the walked tiles, out and the
// log-sum-exps. With the keys split (key_splits: one query tile over many keys) the blocks write
// their partials instead, and the combining launch reads them and the mask.
template <class T>
void attention_forward_on_tensor_cores(const AttentionArgs<T>& a, T* out, float* log_sum_exp,
                                       Stream stream) {
  const AttentionShape& s = a.shape;
  const int64_t splits = key_splits(s);
  const unsigned query_tiles = unsigned((s.q_len + kMmaQueries - 1) / kMmaQueries);
  const WalkedTiles walked = walked_tiles(s, a.causal, a.past, false);
  const double tiles = walked.tiles, bias_entries = walked.bias_entries;
  const double pairs = double(s.batch * s.heads), scores = pairs * tiles * kMmaQueries * kMmaKeys;
  const double q_bytes = double(s.batch * s.q_len * s.heads * s.head_dim) * sizeof(T);
  const double k_bytes = double(s.batch * s.k_len * s.heads * s.head_dim) * sizeof(T);
  const double read = q_bytes + 2 * k_bytes +
                      (a.key_mask ? double(s.batch * s.k_len) * sizeof(int32_t) : 0) +
                      (a.bias ? double(s.heads) * bias_entries * sizeof(float) : 0);
  const double lse_bytes = log_sum_exp ? pairs * double(s.q_len) * sizeof(float) : 0;
  const double mask = a.key_mask ? double(s.batch * s.k_len) * sizeof(int32_t) : 0;
  const double drops = a.dropout.active ? scores * 25.0 : 0.0;
  const double tensor_flops = scores * 2.0 * 2.0 * double(s.head_dim);
  if (splits == 1) {
    declare_cost({read, q_bytes + lse_bytes, drops, tensor_flops});
    PRECIS_LAUNCH(attention_forward_mma_kernel<T>, (dim3{query_tiles, unsigned(s.batch * s.heads)}),
                  dim3{kMmaThreads}, stream, a, out, log_sum_exp, nullptr);
    return;
  }
  const double partial_bytes =
      pairs * double(splits * s.q_len * split_partial_width(s)) * sizeof(float);
  auto* partials = static_cast<float*>(scratch(stream, size_t(partial_bytes)));
  declare_cost({read, partial_bytes, drops, tensor_flops});
  PRECIS_LAUNCH(attention_forward_mma_kernel<T>,
                (dim3{unsigned(splits), unsigned(s.batch * s.heads)}), dim3{kMmaThreads}, stream, a,
                out, log_sum_exp, partials);
  // A rescale and two multiply-adds a partial's element, on the CUDA cores (the cost model prices
  // them at the scalar attention's rate: few enough that it does not matter).
  declare_cost({partial_bytes + mask, q_bytes + lse_bytes,
                pairs * double(s.q_len * (s.head_dim + 1) * splits) * 4.0, 0});
  PRECIS_LAUNCH(attention_split_combine_kernel<T>, (dim3{1, unsigned(s.batch * s.heads)}),
                dim3{kAttentionThreads}, stream, a, partials, splits, out, log_sum_exp);
}

template <class T>
void attention_forward(const AttentionShape& s, const T* q, const T* k, const T* v,
                       const int32_t* key_mask, bool causal, int64_t past, const float* bias,
                       float scale, T* out, float* probs, float* log_sum_exp,
                       const DropoutRange& dropout, Stream stream) {
  check_attention_shape(s);
  const AttentionArgs<T> a =
      attention_args(s, q, k, v, key_mask, causal, past, bias, scale, dropout);
  if constexpr (!std::is_same_v<T, float>)
    if (attention_on_tensor_cores(true, s, probs != nullptr))
      return attention_forward_on_tensor_cores(a, out, log_sum_exp, stream);
  const double rows = double(s.batch * s.heads * s.q_len), scores = rows * double(s.k_len);
  const double out_bytes = double(s.batch * s.q_len * s.heads * s.head_dim) * sizeof(T);
  // QKᵀ and PV; with probs, a second walk forms QKᵀ again and writes them.
  declare_cost(attention_cost<T>(s, probs ? 3 : 2, 1, 2, key_mask, bias, dropout.active, 0,
                                 out_bytes + (log_sum_exp ? rows * sizeof(float) : 0) +
                                     (probs ? scores * sizeof(float) : 0)));
  PRECIS_LAUNCH(attention_forward_kernel<T>, (dim3{tiles(s.q_len), unsigned(s.batch * s.heads)}),
                dim3{kAttentionThreads}, stream, a, out, probs, log_sum_exp);
}

// The tensor-core backward (attention_mma_backward_kernels.cuh), declared as the forward is:
// the causally walked tiles' scores, each 64 x 64 formed whole on the tensor cores, 2·D
// operations an entry per product (the query kernel's QKᵀ and dO·Vᵀ twice, dS·K once; the key
// kernel's QKᵀ, dO·Vᵀ, Wᵀ·dO and dSᵀ·Q), priced at FlashAttention-2's backward rate, which
// includes its elementwise work; dropout's draws (two a score in the query kernel's walks, two
// in the key kernel) declared on the CUDA cores. With d_scores the query kernel walks every tile.
template <class T>
void attention_backward_on_tensor_cores(const AttentionArgs<T>& a, const T* dout,
                                        const float* log_sum_exp, T* dq, T* dk, T* dv,
                                        float* d_scores, Stream stream) {
  const AttentionShape& s = a.shape;
  const unsigned pairs = unsigned(s.batch * s.heads);
  auto* row_dots = static_cast<float*>(scratch(stream, size_t(pairs) * size_t(s.q_len) * sizeof(float)));
  const WalkedTiles query_walk = walked_tiles(s, a.causal, a.past, false, d_scores != nullptr);
  const WalkedTiles key_walk = walked_tiles(s, a.causal, a.past, true);
  const double query_tiles = query_walk.tiles, key_tiles = key_walk.tiles;
  const double bias_entries = query_walk.bias_entries;
  const double tile = double(pairs) * kMmaQueries * kMmaKeys, dims = 2.0 * double(s.head_dim);
  const double q_bytes = double(s.batch * s.q_len * s.heads * s.head_dim) * sizeof(T);
  const double k_bytes = double(s.batch * s.k_len * s.heads * s.head_dim) * sizeof(T);
  const double rows = double(pairs) * double(s.q_len) * sizeof(float);
  const double mask = a.key_mask ? double(s.batch * s.k_len) * sizeof(int32_t) : 0;
  const double bias = a.bias ? double(s.heads) * bias_entries * sizeof(float) : 0;
  const double drops = a.dropout.active ? 25.0 * 2 : 0.0;
  // Reads q, dout, k, v, the log-sum-exps, the mask and the bias; writes dq, the row terms and
  // d_scores.
  declare_cost({2 * q_bytes + 2 * k_bytes + rows + mask + bias,
                q_bytes + rows + (d_scores ? double(pairs) * double(s.q_len * s.k_len) * sizeof(float) : 0),
                query_tiles * tile * drops, query_tiles * tile * 5 * dims});
  PRECIS_LAUNCH(attention_backward_query_mma_kernel<T>,
                (dim3{unsigned((s.q_len + kMmaQueries - 1) / kMmaQueries), pairs}), dim3{kMmaThreads},
                stream, a, dout, log_sum_exp, row_dots, dq, d_scores);
  // Reads q, dout, k, v, the log-sum-exps, the row terms, the mask and the bias (the key kernel
  // walks every tile the query kernel walks without d_scores); writes dk and dv.
  const double key_bias = a.bias ? double(s.heads) * key_walk.bias_entries * sizeof(float) : 0;
  declare_cost({2 * q_bytes + 2 * k_bytes + 2 * rows + mask + key_bias,
                2 * k_bytes, key_tiles * tile * drops, key_tiles * tile * 4 * dims});
  PRECIS_LAUNCH(attention_backward_key_mma_kernel<T>,
                (dim3{unsigned((s.k_len + kMmaKeys - 1) / kMmaKeys), pairs}), dim3{kMmaThreads}, stream,
                a, dout, log_sum_exp, row_dots, dk, dv);
}

// Each of dq, dk and dv is written once per element from its thread's fp32 accumulator, so the
// 16-bit forms need no fp32 scratch for them: only the row terms D_i pass through scratch.
template <class T>
void attention_backward(const AttentionShape& s, const T* dout, const T* q, const T* k, const T* v,
                        const float* probs, const float* log_sum_exp, const int32_t* key_mask,
                        bool causal, int64_t past, const float* bias, float scale,
                        const DropoutRange& dropout, T* dq, T* dk, T* dv, float* d_scores,
                        Stream stream) {
  check_attention_shape(s);
  const AttentionArgs<T> a =
      attention_args(s, q, k, v, key_mask, causal, past, bias, scale, dropout);
  if constexpr (!std::is_same_v<T, float>)
    if (attention_on_tensor_cores(true, s, probs != nullptr, true))
      return attention_backward_on_tensor_cores(a, dout, log_sum_exp, dq, dk, dv, d_scores, stream);
  const unsigned pairs = unsigned(s.batch * s.heads);
  auto* row_dots = static_cast<float*>(scratch(stream, size_t(pairs * s.q_len) * sizeof(float)));
  const double rows = double(pairs) * double(s.q_len), scores = rows * double(s.k_len);
  const double q_bytes = double(s.batch * s.q_len * s.heads * s.head_dim) * sizeof(T);
  const double k_bytes = double(s.batch * s.k_len * s.heads * s.head_dim) * sizeof(T);
  // P from the saved statistics: the probabilities, else the log-sum-exps.
  const double saved = probs ? scores * sizeof(float) : rows * sizeof(float);
  // First walk QKᵀ and dO·Vᵀ (for D), second walk QKᵀ, dO·Vᵀ and dS·K; with saved probs no
  // QKᵀ, so neither q nor the bias is read. Reads dout, k and v.
  declare_cost(attention_cost<T>(s, probs ? 3 : 5, probs ? 1 : 2, 2, key_mask, probs ? nullptr : bias,
                                 dropout.active, saved,
                                 q_bytes + rows * sizeof(float) + (d_scores ? scores * sizeof(float) : 0)));
  PRECIS_LAUNCH(attention_backward_query_kernel<T>, (dim3{tiles(s.q_len), pairs}),
                dim3{kAttentionThreads}, stream, a, dout, probs, log_sum_exp, row_dots, dq,
                d_scores);
  // QKᵀ, Pᵀ·dO, dO·Vᵀ and dSᵀ·Q per key tile, walking every query tile (no QKᵀ with saved
  // probs: then neither k nor the bias is read); reads q, dout, v and the row terms.
  declare_cost(attention_cost<T>(s, probs ? 3 : 4, 2, probs ? 1 : 2, key_mask, probs ? nullptr : bias,
                                 dropout.active, saved + rows * sizeof(float), 2 * k_bytes));
  PRECIS_LAUNCH(attention_backward_key_kernel<T>, (dim3{tiles(s.k_len), pairs}),
                dim3{kAttentionThreads}, stream, a, dout, probs, log_sum_exp, row_dots, dk, dv);
}

}  // namespace

void add_attention_twins(Kernels& k) {
  k.attention_forward = PRECIS_BY_DTYPE(attention_forward);
  k.attention_backward = PRECIS_BY_DTYPE(attention_backward);
}

}  // namespace precis::cuda
