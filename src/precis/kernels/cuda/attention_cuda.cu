// The CUDA twin of attention (kernels/attention.h): the flash-style kernels of
// attention_kernels.cuh, in fp32 and in bf16/fp16. The backward's row terms
// D_i = Σ_j P_ij·dP_ij go through the scratch buffer from the query kernel to the key kernel,
// in stream order.
#include <string>

#include "precis/core/error.h"
#include "precis/kernels/cuda/attention_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
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

template <class T>
AttentionArgs<T> attention_args(const AttentionShape& s, const T* q, const T* k, const T* v,
                                const int32_t* key_mask, bool causal, int64_t past,
                                const float* bias, float scale, const DropoutRange& dropout) {
  return {s, q, k, v, key_mask, causal, past, bias, scale, dropout};
}

template <class T>
void attention_forward(const AttentionShape& s, const T* q, const T* k, const T* v,
                       const int32_t* key_mask, bool causal, int64_t past, const float* bias,
                       float scale, T* out, float* probs, float* log_sum_exp,
                       const DropoutRange& dropout, Stream stream) {
  check_attention_shape(s);
  const AttentionArgs<T> a =
      attention_args(s, q, k, v, key_mask, causal, past, bias, scale, dropout);
  PRECIS_LAUNCH(attention_forward_kernel<T>, (dim3{tiles(s.q_len), unsigned(s.batch * s.heads)}),
                dim3{kAttentionThreads}, stream, a, out, probs, log_sum_exp);
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
  const unsigned pairs = unsigned(s.batch * s.heads);
  auto* row_dots = static_cast<float*>(scratch(stream, size_t(pairs * s.q_len) * sizeof(float)));
  PRECIS_LAUNCH(attention_backward_query_kernel<T>, (dim3{tiles(s.q_len), pairs}),
                dim3{kAttentionThreads}, stream, a, dout, probs, log_sum_exp, row_dots, dq,
                d_scores);
  PRECIS_LAUNCH(attention_backward_key_kernel<T>, (dim3{tiles(s.k_len), pairs}),
                dim3{kAttentionThreads}, stream, a, dout, probs, log_sum_exp, row_dots, dk, dv);
}

}  // namespace

void add_attention_twins(Kernels& k) {
  k.attention_forward = PRECIS_BY_DTYPE(attention_forward);
  k.attention_backward = PRECIS_BY_DTYPE(attention_backward);
}

}  // namespace precis::cuda
