// Attention of a decoding step on the CPU: one query per head and beam against the self-
// attention cache, or a few (an input's beams) against its encoder keys, with nothing saved for
// a backward and no dropout. The general path's two sgemm calls per (batch, head) pair cost
// more to start than to run at these sizes (a 1 x 71 x 64 product), and reading one head's
// slice of each key row leaves the hardware prefetchers behind; this path takes a batch row at
// a time, reads its key and value rows once each, in order, for every head and query, and
// takes each score as a vector dot product of query and key.
//
// Each score is one fused multiply-add chain per slice of the head (16 lanes on AVX-512 builds,
// 8 on AVX2 ones), its lanes summed in one fixed tree, times the scale; each output element a
// chain over the keys in order. The bits do not depend on the thread count (a batch row is one
// thread's); they depend on the lanes, as every vector kernel's do.
#pragma once

#include <cstdint>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

constexpr int64_t kFewQueriesMax = 8;  // queries per (batch, head) pair

// Whether the kernel runs heads `head_dim` wide: fp32 products, and a multiple of 16 on an
// AVX-512 build and CPU or of 8 on an AVX2 (with FMA) one.
bool attention_few_queries_kernel(int64_t head_dim);

// Whether it runs this product: the kernel, at most kFewQueriesMax queries, inference (nothing
// saved, no dropout). It alone reads a cache in place (AttentionMaskView::key_rows).
bool attention_few_queries_usable(const AttentionShape& s, bool saves, bool dropout);

void attention_few_queries(const AttentionShape& s, const float* q, const float* k, const float* v,
                           const AttentionMaskView& m, float scale, float* out);

}  // namespace precis::cpu
