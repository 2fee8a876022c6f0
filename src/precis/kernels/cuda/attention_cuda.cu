// The CUDA twin of attention (kernels/attention.h): the flash-style kernels of
// attention_kernels.cuh. The backward's row terms D_i = Σ_j P_ij·dP_ij go through the scratch
// buffer from the query kernel to the key kernel, in stream order.
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

AttentionArgs attention_args(const AttentionShape& s, const float* q, const float* k,
                             const float* v, const int32_t* key_mask, bool causal, int64_t past,
                             const float* bias, float scale, const DropoutRange& dropout) {
  return {s, q, k, v, key_mask, causal, past, bias, scale, dropout};
}

void attention_forward(const AttentionShape& s, const float* q, const float* k, const float* v,
                       const int32_t* key_mask, bool causal, int64_t past, const float* bias,
                       float scale, float* out, float* probs, float* log_sum_exp,
                       const DropoutRange& dropout, Stream stream) {
  check_attention_shape(s);
  const AttentionArgs a = attention_args(s, q, k, v, key_mask, causal, past, bias, scale, dropout);
  PRECIS_LAUNCH(attention_forward_kernel, (dim3{tiles(s.q_len), unsigned(s.batch * s.heads)}),
                dim3{kAttentionThreads}, stream, a, out, probs, log_sum_exp);
}

void attention_backward(const AttentionShape& s, const float* dout, const float* q, const float* k,
                        const float* v, const float* probs, const float* log_sum_exp,
                        const int32_t* key_mask, bool causal, int64_t past, const float* bias,
                        float scale, const DropoutRange& dropout, float* dq, float* dk, float* dv,
                        float* d_scores, Stream stream) {
  check_attention_shape(s);
  const AttentionArgs a = attention_args(s, q, k, v, key_mask, causal, past, bias, scale, dropout);
  const unsigned pairs = unsigned(s.batch * s.heads);
  auto* row_dots = static_cast<float*>(scratch(stream, size_t(pairs * s.q_len) * sizeof(float)));
  PRECIS_LAUNCH(attention_backward_query_kernel, (dim3{tiles(s.q_len), pairs}),
                dim3{kAttentionThreads}, stream, a, dout, probs, log_sum_exp, row_dots, dq,
                d_scores);
  PRECIS_LAUNCH(attention_backward_key_kernel, (dim3{tiles(s.k_len), pairs}),
                dim3{kAttentionThreads}, stream, a, dout, probs, log_sum_exp, row_dots, dk, dv);
}

}  // namespace

void add_attention_twins(Kernels& k) {
  k.attention_forward = attention_forward;
  k.attention_backward = attention_backward;
}

}  // namespace precis::cuda
