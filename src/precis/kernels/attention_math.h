// The softmax of one row of attention scores, shared by the CPU kernel
// (cpu/attention_cpu.cpp) and the CUDA one's reference path. Masked keys get probability
// exactly 0 (what HF's additive finfo.min mask gives); a row with every key masked becomes
// uniform, as it does there.
#pragma once

#include <cmath>
#include <cstdint>

#include "precis/core/host_device.h"

namespace precis::attention_math {

// Softmax of row[0..n) in place over the keys j with key_mask[j] != 0 (no mask: all) and
// j <= causal_limit. The max, the exps and their sum in float, in key order.
PRECIS_HOST_DEVICE inline void masked_softmax_row(float* row, int64_t n, const int32_t* key_mask,
                                                  int64_t causal_limit) {
  const float minus_inf = -INFINITY;  // <cmath>'s macro: numeric_limits is host-only in CUDA
  float max = minus_inf;
  for (int64_t j = 0; j < n; ++j) {
    bool visible = (!key_mask || key_mask[j]) && j <= causal_limit;
    if (!visible) row[j] = minus_inf;
    if (row[j] > max) max = row[j];
  }
  if (max == minus_inf) {
    for (int64_t j = 0; j < n; ++j) row[j] = 1.0f / float(n);
    return;
  }
  float sum = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - max);
    sum += row[j];
  }
  float inv = 1.0f / sum;
  for (int64_t j = 0; j < n; ++j) row[j] *= inv;
}

}  // namespace precis::attention_math
