// T5's relative position bias (transformers 4.44 models/t5/modeling_t5.py,
// T5Attention.compute_bias and _relative_position_bucket): a learned table (num_buckets, H)
// indexed by the bucket of each (query, key) distance, added to the attention scores of every
// layer of a stack. Buckets are bidirectional in the encoder, causal in the decoder.
#pragma once

#include <cstdint>

#include "precis/core/tensor.h"

namespace precis {

// From the model's config (T5Config::buckets): T5's defaults, 32 buckets and 128, live there.
struct RelativePositionBuckets {
  bool bidirectional;  // true in the encoder; the decoder's buckets are causal
  int64_t num_buckets, max_distance;
};

// The bucket of relative_position = key − query, as relative_position_bucket in modeling_t5
// (the logarithmic part computed in float32 and truncated toward zero, as torch does).
int64_t relative_position_bucket(int64_t relative_position, const RelativePositionBuckets& b);

// bias[h, i, j] = table[bucket(j − (first_query + i)), h]. table (num_buckets, H);
// bias (H, Tq, Tk). first_query: the absolute position of query row 0 (the cache length when
// decoding incrementally).
void relative_position_bias_forward(const Tensor& table, const RelativePositionBuckets& b,
                                    int64_t first_query, const Tensor& bias);

// dtable[bucket(i, j), h] += Σ_b d_scores[b, h, i, j]. d_scores (B, H, Tq, Tk) is the gradient of
// the attention scores, which the bias is added to. Each head sums in a fixed order.
void relative_position_bias_backward(const Tensor& d_scores, const RelativePositionBuckets& b,
                                     int64_t first_query, const Tensor& dtable);

}  // namespace precis
